"""Who may run which tool call: permission modes, allow/deny rules and safe zones.

Order of decision (first match wins):
1. a `permissions.deny` rule matches -> deny;
2. read-only tools (Read, Glob, Grep) and read-only Bash (incl. read-only git) -> allow;
3. `plan` mode -> deny anything that changes something;
4. `bypassPermissions` -> allow;
5. a `permissions.allow` rule (or one granted for this session) matches -> allow;
6. Write/Edit whose real path is inside a safe zone (e.g. the auto-memory dir) -> allow;
7. `acceptEdits` and a Write/Edit inside the project root -> allow;
8. otherwise -> ask the user (headless: refused, and the refusal goes back to the model).
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

PermissionMode = Literal["default", "acceptEdits", "bypassPermissions", "plan"]
PERMISSION_MODES: tuple[PermissionMode, ...] = (
    "default",
    "acceptEdits",
    "bypassPermissions",
    "plan",
)
READ_ONLY_TOOLS = frozenset({"Read", "Glob", "Grep"})
EDIT_TOOLS = frozenset({"Write", "Edit"})

_RULE_RE = re.compile(r"^\s*([A-Za-z_][\w:-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)


@dataclass(frozen=True)
class Decision:
    behavior: Literal["allow", "ask", "deny"]
    reason: str


@dataclass(frozen=True)
class PermissionRule:
    tool: str
    pattern: str | None  # None: every call of the tool

    @classmethod
    def parse(cls, text: str) -> PermissionRule | None:
        match = _RULE_RE.match(text)
        if not match:
            return None
        pattern = match.group(2)
        return cls(match.group(1), pattern.strip() if pattern is not None else None)

    def matches(self, tool: str, args: dict[str, Any], workdir: Path) -> bool:
        if tool != self.tool:
            return False
        if self.pattern is None or self.pattern in ("", "*"):
            return True
        subject = call_subject(tool, args)
        if subject is None:
            return False
        if tool == "Bash":
            return fnmatch.fnmatchcase(subject, self.pattern) or subject == self.pattern
        return any(fnmatch.fnmatchcase(c, self.pattern) for c in path_candidates(subject, workdir))

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"


def call_subject(tool: str, args: dict[str, Any]) -> str | None:
    """The argument a rule pattern is matched against."""
    key = {"Bash": "command", "Read": "file_path", "Write": "file_path", "Edit": "file_path"}.get(
        tool
    )
    value = args.get(key) if key else args.get("pattern")
    return value if isinstance(value, str) else None


def path_candidates(raw: str, workdir: Path) -> list[str]:
    """What a path rule is matched against: the real absolute path, and its path relative to the
    real work dir when inside it. Never the raw argument: `src/../../x` or `./secret.txt` must
    not slip past a rule written for the place they really name."""
    target = real_path(raw, workdir)
    if target is None:
        return []
    candidates = [str(target)]
    root = Path(os.path.realpath(workdir))
    if is_within(target, root) and target != root:
        candidates.append(target.relative_to(root).as_posix())
    return candidates


def real_path(raw: str, workdir: Path) -> Path | None:
    """The real path a file argument points at (symlinks, `..`, `~` resolved); None if unusable."""
    if not raw or "\x00" in raw:
        return None
    path = Path(os.path.expanduser(raw))
    if not path.is_absolute():
        path = workdir / path
    return Path(os.path.realpath(path))


def is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


class SafeZones:
    """Directories where Write/Edit need no approval. add/remove are idempotent."""

    def __init__(self) -> None:
        self._zones: list[Path] = []

    def add(self, folder: Path) -> None:
        real = Path(os.path.realpath(folder))
        if real not in self._zones:
            self._zones.append(real)

    def remove(self, folder: Path) -> None:
        real = Path(os.path.realpath(folder))
        if real in self._zones:
            self._zones.remove(real)

    def contains(self, path: Path) -> bool:
        return any(is_within(path, zone) for zone in self._zones)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(list(self._zones))


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

    def grant_for_session(self, tool: str, args: dict[str, Any]) -> PermissionRule:
        """Remember "always allow" for this exact call shape for the rest of the session."""
        subject = call_subject(tool, args)
        rule = PermissionRule(tool, subject if tool == "Bash" else None)
        if rule not in self.session_allow:
            self.session_allow.append(rule)
        return rule

    def decide(self, tool: str, args: dict[str, Any]) -> Decision:
        for rule in self.deny:
            if rule.matches(tool, args, self.workdir):
                return Decision("deny", f"denied by the permissions.deny rule {rule}")
        if tool in READ_ONLY_TOOLS:
            return Decision("allow", "read-only tool")
        if tool == "Bash":
            from wave_tui.tools.registry import is_read_only_bash

            command = args.get("command")
            if isinstance(command, str) and is_read_only_bash(command):
                return Decision("allow", "read-only command")
        if self.mode == "plan":
            return Decision("deny", "plan mode: no changes until the plan is approved")
        if self.mode == "bypassPermissions":
            return Decision("allow", "bypassPermissions mode")
        for rule in [*self.allow, *self.session_allow]:
            if rule.matches(tool, args, self.workdir):
                return Decision("allow", f"allowed by the rule {rule}")
        if tool in EDIT_TOOLS:
            raw = args.get("file_path")
            target = real_path(raw, self.workdir) if isinstance(raw, str) else None
            if target is not None:
                if self.safe_zones.contains(target):
                    return Decision("allow", "inside a safe zone")
                if self.mode == "acceptEdits" and is_within(
                    target, Path(os.path.realpath(self.workdir))
                ):
                    return Decision("allow", "acceptEdits mode")
        return Decision("ask", f"{tool} needs approval in {self.mode} mode")
