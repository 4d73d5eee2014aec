"""Permission modes, safe zones and the decision for one tool call.

Order of decision (first match wins):
1. a `permissions.deny` rule matches (for Bash: any part of a compound command) -> deny;
2. tools that never need approval (the tool table) and read-only Bash whose git stays in the
   project's own tame repository -> allow (Bash runs with the hardened profile);
3. `plan` mode -> deny anything that changes something;
4. `bypassPermissions` -> allow;
5. allow rules or session grants (Bash: every part allowed) -> allow; never for WebFetch of a
   private or loopback address;
6. Write/Edit whose real path is inside a safe zone (e.g. the auto-memory dir) -> allow;
7. `acceptEdits` and a Write/Edit inside the project root (not in a `.git` folder) -> allow;
8. otherwise -> ask the user (headless: refused, and the refusal goes back to the model).
"""

from __future__ import annotations

import glob
import ipaddress
from collections.abc import Iterator, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, Literal, get_args

from wave_tui.config.paths import display_path
from wave_tui.config.records import record
from wave_tui.config.settings import PermissionMode
from wave_tui.files.real_paths import is_inside, real_path, resolve_tool_path
from wave_tui.permissions.git_guard import HARDENED_GIT_ENV, git_is_contained, uses_git
from wave_tui.permissions.rules import (
    PermissionRule,
    command_parts,
    deny_parts,
    prefix_rule,
    url_host,
)
from wave_tui.permissions.shell import is_read_only_bash
from wave_tui.permissions.tool_table import BASH, WEB_FETCH, call_subject, is_mcp_tool, tool_info

__all__ = [
    "PERMISSION_MODES",
    "Decision",
    "GrantKind",
    "GrantOption",
    "PermissionMode",
    "PermissionPolicy",
    "SafeZones",
]

PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
_NOTHING = "\x00"  # a pattern no command or host can match (NUL is refused everywhere)
# An auto-approved read-only command never writes files, so its output file can be capped (X14).
READ_ONLY_OUTPUT_LIMIT_BYTES = 4 * 1024 * 1024
# A Bash command longer than this is not repeated in its "always" label (the dialog shows it).
LABEL_COMMAND_CHARS = 40
# "scope": the folder, domain, tool or exact command shown; "prefix": Bash(<first words>:*)
# for each part of the command that needs approval.
GrantKind = Literal["scope", "prefix"]


@record
class RunProfile:
    """How an allowed call must be run: extra environment, a cap on its output file."""

    env: Mapping[str, str] = field(default_factory=dict)
    output_limit_bytes: int | None = None


UNRESTRICTED = RunProfile()
# req: X5
READ_ONLY_COMMAND = RunProfile(HARDENED_GIT_ENV, READ_ONLY_OUTPUT_LIMIT_BYTES)


@record
class Decision:
    behavior: Literal["allow", "ask", "deny"]
    reason: str
    profile: RunProfile = UNRESTRICTED


# req: PM5
class SafeZones:
    """Directories where Write/Edit need no approval. add/remove are idempotent."""

    def __init__(self) -> None:
        self._zones: list[Path] = []

    def add(self, folder: Path) -> None:
        real = real_path(folder) or folder
        if real not in self._zones:
            self._zones.append(real)

    def remove(self, folder: Path) -> None:
        real = real_path(folder) or folder
        if real in self._zones:
            self._zones.remove(real)

    def contains(self, path: Path) -> bool:
        return any(is_inside(path, zone) for zone in self._zones)

    def __iter__(self) -> Iterator[Path]:
        return iter(list(self._zones))


def _private_host(host: str | None) -> bool:
    if host is None:
        return True
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return not address.is_global


def _in_git_folder(path: Path) -> bool:
    return ".git" in path.parts


class PermissionPolicy:
    def __init__(
        self,
        workdir: Path,
        mode: PermissionMode = "default",
        allow: list[str] | None = None,
        deny: list[str] | None = None,
        safe_zones: SafeZones | None = None,
    ) -> None:
        self.workdir = workdir
        self.mode: PermissionMode = mode
        self.safe_zones = safe_zones or SafeZones()
        self.session_allow: list[PermissionRule] = []
        self.set_rules(allow or [], deny or [])

    def set_rules(self, allow: list[str], deny: list[str]) -> None:
        self.allow = [r for r in map(PermissionRule.parse, allow) if r]
        self.deny = [r for r in map(PermissionRule.parse, deny) if r]

    # req: UX2
    def grant_for_session(
        self, tool: str, args: dict[str, Any], kind: GrantKind = "scope"
    ) -> tuple[PermissionRule, ...]:
        """Remember "always allow" for what the dialog showed, for the rest of the session: the
        option of that kind the dialog offered (the scope when no such option was offered)."""
        options = grant_options(tool, args, self.workdir)
        chosen = next((o for o in options if o.kind == kind), options[-1])
        for rule in chosen.rules:
            if rule not in self.session_allow:
                self.session_allow.append(rule)
        return chosen.rules

    # req: PM2
    def _denied_by(self, tool: str, args: dict[str, Any]) -> PermissionRule | None:
        command = args.get("command") if tool == BASH else None
        for rule in self.deny:
            if isinstance(command, str) and rule.names_tool(tool):
                if any(rule.matches_text(part) for part in deny_parts(command)):
                    return rule
            elif rule.matches(tool, args, self.workdir):
                return rule
        return None

    def _allowed_by(self, tool: str, args: dict[str, Any]) -> PermissionRule | None:
        rules = [*self.allow, *self.session_allow]
        if tool == WEB_FETCH and _private_host(url_host(args.get("url"))):
            return None  # WF3: a private or loopback address always asks
        command = args.get("command") if tool == BASH else None
        if not isinstance(command, str):
            return next((r for r in rules if r.matches(tool, args, self.workdir)), None)
        bash_rules = [r for r in rules if r.names_tool(tool)]
        exact = next((r for r in bash_rules if r.whole_tool or r.pattern == command), None)
        if exact is not None:
            return exact  # the whole tool, or exactly this command as the user approved it
        parts = command_parts(command)
        if not parts:
            return None
        used: PermissionRule | None = None
        for part in parts:
            rule = next((r for r in bash_rules if r.matches_text(part)), None)
            if rule is None and needs_rule(part):
                return None
            used = used or rule
        return used

    # req: PM1
    def decide(self, tool: str, args: dict[str, Any]) -> Decision:
        denied = self._denied_by(tool, args)
        if denied is not None:
            return Decision("deny", f"denied by the permissions.deny rule {denied}")
        info = tool_info(tool)
        if info.approval == "never":
            return Decision("allow", "read-only tool")
        if info.approval == "children":
            return Decision("allow", "each call it makes is checked")
        if tool == BASH:
            command = args.get("command")
            if (
                isinstance(command, str)
                and is_read_only_bash(command)
                and git_is_contained(command, self.workdir, self.workdir)
            ):
                return Decision("allow", "read-only command", READ_ONLY_COMMAND)
        if self.mode == "plan":
            return Decision("deny", "plan mode: no changes until the plan is approved")
        if self.mode == "bypassPermissions":
            return Decision("allow", "bypassPermissions mode")
        allowed = self._allowed_by(tool, args)
        if allowed is not None:
            return Decision("allow", f"allowed by the rule {allowed}")
        if info.writes_paths:
            target = resolve_tool_path(args.get("file_path"), self.workdir)
            if target is not None and not _in_git_folder(target):
                if self.safe_zones.contains(target):
                    return Decision("allow", "inside a safe zone")
                if self.mode == "acceptEdits" and is_inside(target, self.workdir):
                    return Decision("allow", "acceptEdits mode")
        if is_mcp_tool(tool):
            return Decision("ask", f"{tool} is an MCP tool: it needs approval unless allowed")
        return Decision("ask", f"{tool} needs approval in {self.mode} mode")


# req: X5
def needs_rule(part: str) -> bool:
    """Whether one part of a compound command runs only when a rule allows it."""
    # A part let through for being read-only runs unhardened next to the rule's part,
    # so it may not use git: `echo hi; git -C <hostile repo> status` asks)
    return not is_read_only_bash(part) or uses_git(part)


def _grant_folder(tool: str, args: Mapping[str, Any], root: Path) -> tuple[Path, bool] | None:
    """(folder or file, is_folder) a session grant covers for a path tool, or None."""
    if not tool_info(tool).path_argument:
        return None
    target = resolve_tool_path(args.get("file_path"), root)
    if target is None:
        return None
    if is_inside(target.parent, root):
        return target.parent, True
    return target, False  # outside the project: only this one file, never a folder (UX2)


# req: UX2
def session_rule(tool: str, args: Mapping[str, Any], root: Path) -> PermissionRule:
    """The rule "Always this session" adds: the same tool, and the folder/pattern shown."""
    scope = _grant_folder(tool, args, root)
    if scope is not None:
        place, is_folder = scope
        escaped = glob.escape(str(place))
        return PermissionRule(tool, f"{escaped}/*" if is_folder else escaped)
    if tool == WEB_FETCH:
        host = url_host(args.get("url"))
        return PermissionRule(tool, f"domain:{host}" if host else _NOTHING)
    subject = call_subject(tool, args)
    if tool == BASH:
        return PermissionRule(tool, subject or _NOTHING, literal=bool(subject))
    return PermissionRule(tool, None)


# req: UX2
def grant_label(tool: str, args: Mapping[str, Any], root: Path) -> str:
    """What the dialog's "Always this session" choice says it will allow."""
    scope = _grant_folder(tool, args, root)
    if scope is not None:
        place, is_folder = scope
        where = "in" if is_folder else "to"
        return f"Always allow {tool} {where} {display_path(place, root)} this session"
    rule = session_rule(tool, args, root)
    if tool == WEB_FETCH and rule.pattern:
        return f"Always allow WebFetch from {rule.pattern.removeprefix('domain:')} this session"
    return f"Always allow {rule} this session"


@record
class GrantOption:
    """One "always allow … this session" choice of the dialog: its label and what it grants."""

    kind: GrantKind
    label: str
    rules: tuple[PermissionRule, ...]


# req: CV10
def grant_options(tool: str, args: Mapping[str, Any], root: Path) -> tuple[GrantOption, ...]:
    """The dialog's "always" choices, the scope last. Bash adds, before its exact command, the
    prefix rule of each part that needs approval (`git add . && git commit -m x`: `Bash(git
    add:*)` and `Bash(git commit:*)`): each rule covers only a command the user saw, and a
    command that cannot be split with certainty (substitutions, redirections) gets none."""
    scope = session_rule(tool, args, root)
    label = grant_label(tool, args, root)
    command = args.get("command") if tool == BASH else None
    if not isinstance(command, str):
        return (GrantOption("scope", label, (scope,)),)
    if len(command) > LABEL_COMMAND_CHARS or "\n" in command:
        label = "Always allow this exact command this session"
    exact = GrantOption("scope", label, (scope,))
    prefixes = _prefix_rules(command)
    if not prefixes:
        return (exact,)
    names = " and ".join(map(str, prefixes))
    return (GrantOption("prefix", f"Always allow {names} this session", prefixes), exact)


def _prefix_rules(command: str) -> tuple[PermissionRule, ...]:
    """The prefix option's rules: a prefix rule per part that needs one, that part exactly where
    it has no prefix; none at all unless at least one part has a prefix."""
    parts = command_parts(command)
    if not parts:
        return ()
    rules: list[PermissionRule] = []
    for part in filter(needs_rule, parts):
        rule = prefix_rule(part) or PermissionRule(BASH, part, literal=True)
        if rule not in rules:
            rules.append(rule)
    if not any(rule.pattern and not rule.literal for rule in rules):
        return ()
    return tuple(rules)
