"""The words of a Bash command as the rules see them: the pieces a deny rule is matched against
(an over-approximation: every operator, subshell and substitution split, what wrappers and
`sh -c` run) and the first words a `Bash(<first words>:*)` grant names.

Pure text analysis, done once per call where the call is analysed (`call_facts.py`); the
rules only compare.
"""

from __future__ import annotations

import re
import shlex

from wave_tui.permissions.destructive import is_destructive

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
    if is_destructive(words):
        return None  # granted exactly as shown, never by prefix
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
