"""Allow/deny rules: parsing, matching a call against one rule, and the rule set that answers
for a call in one walk (`RuleSet.answer`: the deny rule that matches, else the allow rule or
session grant that does).

`Tool`, `Tool(pattern)`, `Bash(npm run test:*)` (prefix), `mcp__server` (every tool of that MCP
server), `mcp__server__tool`, `WebFetch(domain:example.com)` (the host or a subdomain).
Compound Bash commands are matched part by part (X6): see `command_parts` / `deny_parts`.
`command_prefix` picks the first words a `Bash(<first words>:*)` grant offers.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import re
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from wave_tui.config.records import record
from wave_tui.files.real_paths import is_strictly_inside, real_path, resolve_tool_path
from wave_tui.permissions.git_guard import uses_git
from wave_tui.permissions.shell import is_read_only_bash, simple_commands
from wave_tui.permissions.tool_table import BASH, MCP_PREFIX, CallOnRow

_RULE_RE = re.compile(r"^\s*([A-Za-z_][\w:-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_DOMAIN_PREFIX = "domain:"
_PREFIX_SUFFIX = ":*"


# req: HL4
def parse_rule_list(text: str) -> list[str]:
    """`"Read,Bash(git *) Edit"` -> `["Read", "Bash(git *)", "Edit"]`: commas or spaces separate
    rules, except inside parentheses."""
    rules: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        if depth == 0 and (char == "," or char.isspace()):
            if current:
                rules.append("".join(current))
                current = []
            continue
        current.append(char)
    if current:
        rules.append("".join(current))
    return rules


def _text_matches(text: str, pattern: str) -> bool:
    if pattern.endswith(_PREFIX_SUFFIX):
        prefix = pattern[: -len(_PREFIX_SUFFIX)]
        return text == prefix or text.startswith(prefix + " ")
    if pattern.endswith(" *") and text == pattern[:-2]:
        return True  # `Bash(rm *)` covers a bare `rm` too
    return text == pattern or fnmatch.fnmatchcase(text, pattern)


def url_host(url: object) -> str | None:
    if not isinstance(url, str):
        return None
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host.rstrip(".").lower() if host else None


@record
class PermissionRule:
    tool: str
    pattern: str | None  # None: every call of the tool
    # A grant of exactly the command the user saw: compared as text, never as a glob (`rm x*`
    # approved once must not allow `rm x/../../y`).
    literal: bool = False

    @classmethod
    def parse(cls, text: str) -> PermissionRule | None:
        match = _RULE_RE.match(text)
        if not match:
            return None
        pattern = match.group(2)
        return cls(match.group(1), pattern.strip() if pattern is not None else None)

    # req: MC5
    def names_tool(self, tool: str) -> bool:
        """Whether this rule is about `tool` (MC5: `mcp__server` covers all that server's tools)."""
        if tool == self.tool:
            return True
        if self.tool.startswith(MCP_PREFIX) and tool.startswith(MCP_PREFIX):
            server_rule = self.tool.count("__") == 1
            if server_rule:
                return tool.startswith(self.tool + "__")
            return "*" in self.tool and fnmatch.fnmatchcase(tool, self.tool)
        return False

    @property
    def whole_tool(self) -> bool:
        return not self.literal and (self.pattern is None or self.pattern in ("", "*"))

    def matches_text(self, text: str) -> bool:
        """For Bash: one command (a part of a compound command, or the whole string)."""
        if self.literal:
            return text == self.pattern
        return self.whole_tool or (self.pattern is not None and _text_matches(text, self.pattern))

    # req: PM2
    def matches(self, call: CallOnRow, workdir: Path) -> bool:
        """Whether the rule covers the call as a whole (Bash: see `RuleSet` for compounds)."""
        if not self.names_tool(call.name):
            return False
        if self.whole_tool:
            return True
        assert self.pattern is not None
        if call.name == "WebFetch" and self.pattern.startswith(_DOMAIN_PREFIX):
            host = url_host(call.args.get("url"))
            return _domain_matches(host, self.pattern[len(_DOMAIN_PREFIX) :])
        key = call.row.key_argument
        subject = call.args.get(key) if key is not None else None
        if not isinstance(subject, str):
            return False
        if call.name == "Bash":
            return self.matches_text(subject)
        if call.row.path_argument or call.name in ("Glob", "Grep"):
            return any(
                fnmatch.fnmatchcase(c, self.pattern) for c in path_candidates(subject, workdir)
            )
        return fnmatch.fnmatchcase(subject, self.pattern)

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"


# req: WF4
def _domain_matches(host: str | None, domain: str) -> bool:
    domain = domain.strip().rstrip(".").lower()
    if host is None or not domain:
        return False
    if domain.startswith("*."):
        domain = domain[2:]
    return host == domain or host.endswith("." + domain)


def path_candidates(raw: str, workdir: Path) -> list[str]:
    """What a path rule is matched against: the real absolute path, and its path relative to the
    real work dir when inside it. Never the raw argument: `src/../../x` or `./secret.txt` must
    not slip past a rule written for the place they really name."""
    target = resolve_tool_path(raw, workdir)
    if target is None:
        return []
    candidates = [str(target)]
    root = real_path(workdir)
    if root is not None and is_strictly_inside(target, root):
        candidates.append(target.relative_to(root).as_posix())
    return candidates


def private_host(host: str | None) -> bool:
    """A host no allow rule may open: loopback, link-local, private, `.local` (WF3)."""
    if host is None:
        return True
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return not address.is_global


@record
class RuleAnswer:
    """What the rules say of one call: the deny rule that matches it, else the allow rule (or
    session grant) that covers it; neither when no rule speaks."""

    denied: PermissionRule | None = None
    allowed: PermissionRule | None = None


class RuleSet:
    """The settings' allow and deny rules and the session's grants, asked once per call."""

    def __init__(self, workdir: Path, allow: Sequence[str] = (), deny: Sequence[str] = ()) -> None:
        self.workdir = workdir
        self.session: list[PermissionRule] = []  # "always this session" grants, in order
        self.replace(allow, deny)

    def replace(self, allow: Sequence[str], deny: Sequence[str]) -> None:
        self.allow = [r for r in map(PermissionRule.parse, allow) if r]
        self.deny = [r for r in map(PermissionRule.parse, deny) if r]

    def grant(self, rules: Sequence[PermissionRule]) -> None:
        for rule in rules:
            if rule not in self.session:
                self.session.append(rule)

    def allowing(self) -> Iterator[PermissionRule]:
        yield from self.allow
        yield from self.session

    # req: PM2
    # req: X6
    def answer(self, call: CallOnRow) -> RuleAnswer:
        """Deny rules first (for Bash: any piece of a compound command), then allow rules and
        grants (for Bash: the whole tool, the exact command, or every part allowed); never an
        allow rule for WebFetch of a private or loopback address (WF3)."""
        command = call.args.get("command") if call.name == "Bash" else None
        if isinstance(command, str):
            return self._answer_command(command)
        for rule in self.deny:
            if rule.matches(call, self.workdir):
                return RuleAnswer(denied=rule)
        if call.name == "WebFetch" and private_host(url_host(call.args.get("url"))):
            return RuleAnswer()
        allowed = next((r for r in self.allowing() if r.matches(call, self.workdir)), None)
        return RuleAnswer(allowed=allowed)

    def _answer_command(self, command: str) -> RuleAnswer:
        pieces = deny_parts(command)
        for denying in self.deny:
            if denying.names_tool("Bash") and any(denying.matches_text(p) for p in pieces):
                return RuleAnswer(denied=denying)
        bash_rules = [r for r in self.allowing() if r.names_tool("Bash")]
        exact = next((r for r in bash_rules if r.whole_tool or r.pattern == command), None)
        if exact is not None:
            return RuleAnswer(allowed=exact)  # the whole tool, or exactly the approved command
        used: PermissionRule | None = None
        for part in command_parts(command) or ():
            rule = next((r for r in bash_rules if r.matches_text(part)), None)
            if rule is None and needs_rule(part):
                return RuleAnswer()
            used = used or rule
        return RuleAnswer(allowed=used)


# req: X5
def needs_rule(part: str) -> bool:
    """Whether one part of a compound command runs only when a rule allows it."""
    # A part let through for being read-only runs unhardened next to the rule's part,
    # so it may not use git: `echo hi; git -C <hostile repo> status` asks)
    return not is_read_only_bash(part) or uses_git(part)


# req: X6
def command_parts(command: str) -> list[str] | None:
    """Each simple command of `command`, requoted, for allow rules; None if it cannot be split
    with certainty (substitutions, subshells, writing redirections): then no allow rule applies."""
    commands = simple_commands(command)
    if commands is None:
        return None
    return [shlex.join(words) for words in commands]


_DENY_SPLIT = re.compile(r"\$\(|[;&|()`{}\n\r]")
_LEADING_WORDS = frozenset(
    {"then", "do", "else", "elif", "if", "while", "until", "!", "time", "exec", "command",
     "builtin", "nohup", "env", "sudo", "xargs"}
)  # fmt: skip
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")
_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!"})


# Programs that run the rest of their arguments as a command (after their own options/values).
_WRAPPERS = frozenset(
    {"env", "sudo", "doas", "xargs", "nice", "ionice", "timeout", "nohup", "time", "command",
     "builtin", "exec", "watch", "stdbuf", "setsid", "chroot", "strace", "ltrace", "unbuffer",
     "busybox", "flock"}
)  # fmt: skip
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "fish", "ash"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_MAX_NESTING = 4  # `sh -c "sh -c '…'"`: deeper than this is denied by the raw pieces only


def _program(word: str) -> str:
    return word.rsplit("/", 1)[-1]  # `/bin/rm`, `./rm` run rm


def _inner_commands(words: list[str], depth: int) -> list[str]:
    """The commands a simple command runs for itself: the program by its base name, what a
    wrapper or `find -exec` runs, and the text of `sh -c` (split like a command line)."""
    if not words:
        return []
    program = _program(words[0])
    found = [" ".join([program, *words[1:]])]
    if program in _WRAPPERS:
        for i in range(1, len(words)):
            if not words[i].startswith("-"):
                found += _inner_commands(words[i:], depth)
    for i, word in enumerate(words[:-1]):
        if word in _FIND_EXEC:
            found += _inner_commands(words[i + 1 :], depth)
    if program == "eval" and depth < _MAX_NESTING:
        found += _deny_parts(" ".join(words[1:]), depth + 1)
    if program in _SHELLS and depth < _MAX_NESTING:
        for i, word in enumerate(words[1:-1], 1):
            if word.startswith("-") and not word.startswith("--") and "c" in word:
                found += _deny_parts(words[i + 1], depth + 1)
    return found


# req: X6
def deny_parts(command: str) -> list[str]:
    """Every piece of `command` a deny rule is matched against: an over-approximation.

    Split at every operator, subshell, group and substitution (quoted or not: a false split can
    only deny more), leading keywords and assignments dropped, each piece raw and unquoted; then
    what each piece runs for itself (`/bin/rm`, `sudo -u root rm`, `find -exec rm`, `sh -c`).
    """
    return _deny_parts(command, 0)


def _deny_parts(command: str, depth: int) -> list[str]:
    pieces = [command.strip()]
    for chunk in _DENY_SPLIT.split(command):
        unquoted = chunk.replace("$'", "'").replace('$"', '"')  # ANSI-C and locale quoting
        try:
            words = shlex.split(unquoted)
        except ValueError:
            words = unquoted.split()
        runs = words  # keywords and assignments dropped, wrappers kept for _inner_commands
        while runs and (runs[0] in _KEYWORDS or _ASSIGNMENT.match(runs[0])):
            runs = runs[1:]
        while words and (words[0] in _LEADING_WORDS or _ASSIGNMENT.match(words[0])):
            words = words[1:]
        if words:
            pieces.extend({chunk.strip(), " ".join(words)})
        pieces.extend(_inner_commands(runs, depth))
    return list(dict.fromkeys(p for p in pieces if p))


# Programs whose first argument is a subcommand (`git commit`, `cargo test`): their prefix is the
# program and that many subcommand words; every other program's prefix is the program alone
# (`pytest tests/x.py` -> `pytest`), as Claude Code chooses a command's prefix.
_SUBCOMMANDS: dict[str, int] = {
    **dict.fromkeys(
        ("git", "npm", "pnpm", "yarn", "bun", "cargo", "go", "docker", "podman", "kubectl",
         "helm", "pip", "pip3", "uv", "poetry", "pipenv", "conda", "brew", "apt", "apt-get",
         "dotnet", "terraform", "systemctl", "rustup", "deno", "mix", "composer", "bundle",
         "gradle", "mvn", "swift", "flutter", "dart", "hatch", "pdm", "tox", "nox", "just"),
        1,
    ),
    **dict.fromkeys(("gh", "glab", "az", "gcloud", "aws"), 2),  # `gh pr create`
}  # fmt: skip
# After these subcommands one more word names what runs: `npm run test`, `uv run pytest`.
_RUNNER_SUBCOMMANDS = frozenset(
    {("npm", "run"), ("npm", "run-script"), ("npm", "exec"), ("pnpm", "run"), ("pnpm", "exec"),
     ("pnpm", "dlx"), ("yarn", "run"), ("yarn", "dlx"), ("bun", "run"), ("bun", "x"),
     ("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"),
     ("hatch", "run"), ("conda", "run"), ("docker", "compose"), ("bundle", "exec")}
)  # fmt: skip
_PACKAGE_RUNNERS = frozenset({"npx", "pnpx", "bunx", "uvx", "pipx"})  # `npx prettier`
# An interpreter runs whatever its first argument names: `python -m pytest`, `node build.js`;
# `-c`/`-e` code, or any other option first, gets no prefix.
_INTERPRETERS = frozenset(
    {"python", "python3", "node", "ruby", "perl", "php", "lua", "Rscript"}
)  # fmt: skip
_MODULE_FLAG = "-m"
# Programs that run what follows them as a command: `Bash(sudo:*)` would allow anything.
_NO_PREFIX = frozenset({"eval", "source", ".", "exec", "command", "builtin"})


# req: CV10
def command_prefix(words: list[str]) -> list[str] | None:
    """The first words of one simple command that a `Bash(<first words>:*)` grant names: the
    program, plus its subcommand for programs known to take one (`git commit`, `npm run test`,
    `gh pr create`). None when no prefix is narrower than the whole command yet safe to offer:
    the command is only its prefix (`npm test`), an option comes where a subcommand should
    (`git -C x status`), an assignment or a wrapper leads (`FOO=1 make`, `sudo …`, `bash -c`)."""
    if not words or _ASSIGNMENT.match(words[0]):
        return None
    program = words[0]
    name = _program(program)
    if name in _WRAPPERS or name in _SHELLS or name in _NO_PREFIX:
        return None
    count = 1
    if name in _SUBCOMMANDS:
        count += _SUBCOMMANDS[name]
        if (name, *words[1:2]) in _RUNNER_SUBCOMMANDS:
            count += 1
    elif name in _PACKAGE_RUNNERS:
        count = 2
    elif name in _INTERPRETERS:
        count = 3 if words[1:2] == [_MODULE_FLAG] else 2
    chosen = words[:count]
    if len(chosen) < count or any(w.startswith("-") for w in chosen[1:] if w != _MODULE_FLAG):
        return None  # `git --version`, `npm -g install x`, `python -c …`: no safe prefix
    if len(words) == count:
        return None  # `npm test`: the prefix would be the whole command
    return chosen


# req: CV10
def prefix_rule(part: str) -> PermissionRule | None:
    """`Bash(<first words>:*)` for one simple command (a part as `command_parts` gives it)."""
    commands = simple_commands(part)
    if commands is None or len(commands) != 1:
        return None
    prefix = command_prefix(commands[0])
    if prefix is None:
        return None
    return PermissionRule(BASH, shlex.join(prefix) + _PREFIX_SUFFIX)
