"""Permission modes, safe zones, and the one answer for one tool call: `PermissionPolicy.resolve`.

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
8. otherwise -> ask the user (headless: refused, and the refusal goes back to the model); the
   reply (allow once, an "always this session" option, deny, deny with the user's reason) is
   applied here too. The rules (1 and 5) are asked once, in one walk (`RuleSet.answer`).
"""

from __future__ import annotations

import glob
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, Literal, get_args

from wave_tui.config.paths import display_path
from wave_tui.config.records import record
from wave_tui.config.settings import PermissionMode
from wave_tui.files.real_paths import is_inside, real_path, resolve_tool_path
from wave_tui.permissions.git_guard import HARDENED_GIT_ENV, git_is_contained
from wave_tui.permissions.rules import (
    PermissionRule,
    RuleSet,
    command_parts,
    needs_rule,
    prefix_rule,
    url_host,
)
from wave_tui.permissions.shell import is_read_only_bash
from wave_tui.permissions.tool_table import (
    BASH,
    WEB_FETCH,
    CallOnRow,
    ToolUse,
    call_subject,
    is_mcp_tool,
    tool_info,
)

__all__ = [
    "PERMISSION_MODES",
    "Ask",
    "Decision",
    "GrantKind",
    "GrantOption",
    "PermissionAnswer",
    "PermissionChoice",
    "PermissionMode",
    "PermissionPolicy",
    "PermissionReply",
    "Resolution",
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
PermissionChoice = Literal["allow_once", "allow_session", "deny"]

HEADLESS_REFUSAL = (
    "Permission denied: {reason}. wave is running headless (-p), where calls that need approval "
    "are refused. Continue without this call, or tell the user which permission is needed "
    "(e.g. --permission-mode acceptEdits or a permissions.allow rule)."
)
USER_REFUSAL = "Permission denied by the user for this {tool} call. Do not retry it; ask or adapt."
USER_REFUSAL_WITH_REASON = (
    "Permission denied by the user for this {tool} call. Do not retry it as it was. The user "
    "said why, and this is how to go on:\n{feedback}"
)


@record
class PermissionAnswer:
    """The user's answer to a permission question, with what a bare choice cannot say."""

    choice: PermissionChoice
    grant: GrantKind = "scope"  # allow_session: which of the offered "always" options
    feedback: str = ""  # deny: the user's reason, given to the model with the refusal


# A bare choice is an answer with the scope's grant and no feedback (approvers return these).
PermissionReply = PermissionChoice | PermissionAnswer
# Who asks the user: (tool, arguments, why it needs approval) -> the reply.
Ask = Callable[[str, dict[str, Any], str], Awaitable[PermissionReply]]


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


@record
class Resolution:
    """How one call goes on: refused (the text the model is told), or run with this profile."""

    refusal: str | None
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
        self.rules = RuleSet(workdir, allow or [], deny or [])

    def set_rules(self, allow: list[str], deny: list[str]) -> None:
        self.rules.replace(allow, deny)

    @property
    def allow(self) -> list[PermissionRule]:
        return self.rules.allow

    @property
    def deny(self) -> list[PermissionRule]:
        return self.rules.deny

    @property
    def session_allow(self) -> list[PermissionRule]:
        return self.rules.session

    # req: PM4
    async def resolve(self, call: CallOnRow, ask: Ask | None) -> Resolution:
        """The whole answer for one call: deny, allow, or ask (`ask` None: nobody can answer,
        a refusal) and apply the reply: allow once, grant the chosen option for the session,
        deny (with the user's reason when they gave one)."""
        decision = self.verdict(call)
        if decision.behavior == "allow":
            return Resolution(None, decision.profile)
        if decision.behavior == "deny":
            return Resolution(f"Permission denied: {decision.reason}.")
        if ask is None:
            return Resolution(HEADLESS_REFUSAL.format(reason=decision.reason))
        reply = await ask(call.name, dict(call.args), decision.reason)
        answer = reply if isinstance(reply, PermissionAnswer) else PermissionAnswer(reply)
        if answer.choice == "deny":
            return Resolution(refusal_text(call.name, answer.feedback))
        if answer.choice == "allow_session":
            self.rules.grant(grant_rules(call.name, call.args, self.workdir, answer.grant))
        return Resolution(None)

    # req: PM1
    def verdict(self, call: CallOnRow) -> Decision:
        """deny / allow / ask for `call`, before anyone is asked."""
        rules = self.rules.answer(call)
        if rules.denied is not None:
            return Decision("deny", f"denied by the permissions.deny rule {rules.denied}")
        row = call.row
        if row.approval == "never":
            return Decision("allow", "read-only tool")
        if row.approval == "children":
            return Decision("allow", "each call it makes is checked")
        command = call.args.get("command") if call.name == "Bash" else None
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
        if rules.allowed is not None:
            return Decision("allow", f"allowed by the rule {rules.allowed}")
        target = (
            resolve_tool_path(call.args.get("file_path"), self.workdir)
            if row.writes_paths
            else None
        )
        if target is not None and not _in_git_folder(target):
            if any(is_inside(target, zone) for zone in self.safe_zones):
                return Decision("allow", "inside a safe zone")
            if self.mode == "acceptEdits" and is_inside(target, self.workdir):
                return Decision("allow", "acceptEdits mode")
        if is_mcp_tool(call.name):
            return Decision("ask", f"{call.name} is an MCP tool: it needs approval unless allowed")
        return Decision("ask", f"{call.name} needs approval in {self.mode} mode")

    def decide(self, tool: str, args: dict[str, Any]) -> Decision:
        """`verdict` for a bare name and arguments."""
        return self.verdict(ToolUse.of(tool, args))

    # req: UX2
    def grant_for_session(
        self, tool: str, args: dict[str, Any], kind: GrantKind = "scope"
    ) -> tuple[PermissionRule, ...]:
        """Remember "always allow" for what the dialog showed, for the rest of the session: the
        option of that kind the dialog offered (the scope when no such option was offered)."""
        rules = grant_rules(tool, args, self.workdir, kind)
        self.rules.grant(rules)
        return rules


# req: CV15
def refusal_text(tool: str, feedback: str) -> str:
    """What the model is told of a denial: the user's own words with it when they gave any."""
    feedback = feedback.strip()
    if not feedback:
        return USER_REFUSAL.format(tool=tool)
    return USER_REFUSAL_WITH_REASON.format(tool=tool, feedback=feedback)


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


# req: UX2
def grant_rules(
    tool: str, args: Mapping[str, Any], root: Path, kind: GrantKind
) -> tuple[PermissionRule, ...]:
    """What the dialog's "always" option of `kind` grants (`grant_options` without the labels):
    the scope when no option of that kind is offered."""
    command = args.get("command") if tool == "Bash" else None
    if kind == "prefix" and isinstance(command, str):
        prefixes = _prefix_rules(command)
        if prefixes:
            return prefixes
    return (session_rule(tool, args, root),)


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
