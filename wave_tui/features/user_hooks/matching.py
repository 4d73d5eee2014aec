"""Which hooks a tool call selects: the group's `matcher` and the hook's `if` filter.

`matcher`: absent, `""` or `*` selects every tool; `/regex/` a name the regex finds; a list of
names and globs (`Write|Edit`, `Read*`, `mcp__github__*`) a name equal to or matching one of
them; anything else is a regex the whole name must match (`Read.*`, `mcp__.*`), compared
literally when it does not compile. `if` is a permission-rule pattern (`Bash(git commit:*)`,
`Edit(src/*)`) matched by the permission rules' own matcher; for Bash, any piece of a compound
command a deny rule would be matched against may select the hook.
"""

from __future__ import annotations

import fnmatch
import re

from wave_tui.permissions.call_facts import AnalysedCall
from wave_tui.permissions.rules import PermissionRule

_NAMES = re.compile(r"[\w*?\-]+(?:\|[\w*?\-]+)*")
_EVERY = ("", "*")


def _regex_of(matcher: str) -> str | None:
    """The body of a `/regex/` matcher, None for other forms."""
    if len(matcher) >= 2 and matcher.startswith("/") and matcher.endswith("/"):
        return matcher[1:-1]
    return None


# req: PH2
def matcher_problem(matcher: str) -> str | None:
    """Why a matcher cannot be used as written (it then compares literally), or None."""
    if matcher in _EVERY or _NAMES.fullmatch(matcher):
        return None
    pattern = _regex_of(matcher)
    try:
        re.compile(matcher if pattern is None else pattern)
    except re.error as exc:
        return f"invalid regex ({exc}); matched literally"
    return None


# req: PH2
def matcher_selects(matcher: str, tool_name: str) -> bool:
    """Whether a group's `matcher` selects a call of `tool_name`."""
    if matcher in _EVERY:
        return True
    pattern = _regex_of(matcher)
    if pattern is not None:
        try:
            return re.search(pattern, tool_name) is not None
        except re.error:
            return matcher == tool_name
    if _NAMES.fullmatch(matcher):
        return any(fnmatch.fnmatchcase(tool_name, name) for name in matcher.split("|"))
    try:
        return re.fullmatch(matcher, tool_name) is not None
    except re.error:
        return matcher == tool_name


# req: PH2
def condition_selects(condition: str, call: AnalysedCall) -> bool:
    """Whether a hook's `if` (a permission-rule pattern) covers the call; "" covers all."""
    if not condition:
        return True
    rule = PermissionRule.parse(condition)
    if rule is None:
        return False  # reported when the settings are read; never runs on a guess
    command = call.facts.command
    if command is not None and rule.names_tool(call.name):
        texts = (command.text, *command.deny_pieces)
        return any(rule.matches_text(text) for text in texts)
    return rule.matches(call)
