"""Allow/deny rules: parsing, matching a call against one rule, and the rule set that answers
for a call in one walk (`RuleSet.answer`: the deny rule that matches, else the allow rule or
session grant that does).

`Tool`, `Tool(pattern)`, `Bash(npm run test:*)` (prefix), `mcp__server` (every tool of that MCP
server), `mcp__server__tool`, `WebFetch(domain:example.com)` (the host or a subdomain).
Compound Bash commands are matched part by part (X6), on the parts and deny pieces the call's
facts hold (`call_facts.py`, split once); the rules only compare.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Iterator, Sequence

from wave_tui.config.records import record
from wave_tui.permissions.call_facts import AnalysedCall, CommandFacts, CommandPart
from wave_tui.permissions.destructive import is_destructive
from wave_tui.permissions.tool_table import BASH, MCP_PREFIX, WEB_FETCH

_RULE_RE = re.compile(r"^\s*([A-Za-z_][\w:-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_DOMAIN_PREFIX = "domain:"
PREFIX_SUFFIX = ":*"


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
    if pattern.endswith(PREFIX_SUFFIX):
        prefix = pattern[: -len(PREFIX_SUFFIX)]
        return text == prefix or text.startswith(prefix + " ")
    if pattern.endswith(" *") and text == pattern[:-2]:
        return True  # `Bash(rm *)` covers a bare `rm` too
    return text == pattern or fnmatch.fnmatchcase(text, pattern)


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

    # req: FH15
    def allows_part(self, part: CommandPart) -> bool:
        """Whether this allow rule or grant lets one simple command run. A prefix
        (`Bash(git push:*)`) never lets through a destructive form its own words do not name: a
        yes to `git push origin main` does not run `git push --force` unasked, while
        `Bash(git push --force:*)` or `Bash(rm:*)` still say what they allow. Deny rules match
        by `matches_text` alone: they cover more, never less."""
        if not self.matches_text(part.text):
            return False
        pattern = self.pattern
        if self.literal or pattern is None or not pattern.endswith(PREFIX_SUFFIX):
            return True
        words = list(part.words) or _words(part.text)
        return not is_destructive(words) or is_destructive(_words(pattern[: -len(PREFIX_SUFFIX)]))

    # req: PM2
    def matches(self, call: AnalysedCall) -> bool:
        """Whether the rule covers the call as a whole (Bash: see `RuleSet` for compounds)."""
        if not self.names_tool(call.name):
            return False
        if self.whole_tool:
            return True
        assert self.pattern is not None
        facts = call.facts
        if call.name == WEB_FETCH and self.pattern.startswith(_DOMAIN_PREFIX):
            return _domain_matches(facts.host, self.pattern[len(_DOMAIN_PREFIX) :])
        if facts.command is not None:
            return self.matches_text(facts.command.text)
        if facts.rule_paths:
            return any(fnmatch.fnmatchcase(c, self.pattern) for c in facts.rule_paths)
        key = call.row.key_argument
        subject = call.args.get(key) if key is not None else None
        return isinstance(subject, str) and fnmatch.fnmatchcase(subject, self.pattern)

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


@record
class RuleAnswer:
    """What the rules say of one call: the deny rule that matches it, else the allow rule (or
    session grant) that covers it; neither when no rule speaks."""

    denied: PermissionRule | None = None
    allowed: PermissionRule | None = None


class RuleSet:
    """The settings' allow and deny rules and the session's grants, asked once per call."""

    def __init__(self, allow: Sequence[str] = (), deny: Sequence[str] = ()) -> None:
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
    def answer(self, call: AnalysedCall) -> RuleAnswer:
        """Deny rules first (for Bash: any piece of a compound command), then allow rules and
        grants (for Bash: the whole tool, the exact command, or every part allowed); never an
        allow rule for WebFetch of a private or loopback address (WF3)."""
        command = call.facts.command
        if command is not None:
            return self._answer_command(command)
        for rule in self.deny:
            if rule.matches(call):
                return RuleAnswer(denied=rule)
        if call.facts.private_host:
            return RuleAnswer()
        allowed = next((r for r in self.allowing() if r.matches(call)), None)
        return RuleAnswer(allowed=allowed)

    def _answer_command(self, command: CommandFacts) -> RuleAnswer:
        for denying in self.deny:
            if denying.names_tool(BASH) and any(map(denying.matches_text, command.deny_pieces)):
                return RuleAnswer(denied=denying)
        bash_rules = [r for r in self.allowing() if r.names_tool(BASH)]
        exact = next((r for r in bash_rules if r.whole_tool or r.pattern == command.text), None)
        if exact is not None:
            return RuleAnswer(allowed=exact)  # the whole tool, or exactly the approved command
        used: PermissionRule | None = None
        for part in command.parts or ():
            rule = next((r for r in bash_rules if r.allows_part(part)), None)
            if rule is None and part.needs_rule:
                return RuleAnswer()
            used = used or rule
        return RuleAnswer(allowed=used)


# req: CV10
def prefix_rule(part: CommandPart) -> PermissionRule | None:
    """`Bash(<first words>:*)` for one part of a command, when it has a safe prefix."""
    return None if part.prefix is None else PermissionRule(BASH, part.prefix + PREFIX_SUFFIX)


def _words(text: str) -> list[str]:
    """A command's words as the shell splits them; unsplittable text is its own one word (a
    destructive program is still found first)."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()
