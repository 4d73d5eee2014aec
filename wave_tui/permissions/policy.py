"""Permission modes, safe zones, and the one answer for one tool call: `PermissionPolicy.resolve`.

Order of decision (first match wins):
1. a `permissions.deny` rule matches (for Bash: any part of a compound command) -> deny;
2. tools that never need approval (the tool table) and read-only Bash whose git stays in the
   project's own tame repository -> allow (Bash runs with the hardened profile);
3. `plan` mode -> deny anything that changes something;
4. `bypassPermissions` -> allow;
5. allow rules or session grants (Bash: every part allowed) -> allow; never for WebFetch of a
   private or loopback address; with a Bash sandbox in force (`sandboxing.py`), a Bash command
   it takes runs sandboxed without asking in default mode, and whatever lets a Bash command run
   runs it sandboxed unless it is excluded (then, as the retry of a blocked one, it asks);
6. Write/Edit whose real path is inside a safe zone (e.g. the auto-memory dir) -> allow;
7. `acceptEdits` and a Write/Edit inside the project root (not in a `.git` folder) -> allow;
8. otherwise -> ask the user (headless: refused, and the refusal goes back to the model); the
   reply (allow once, an "always this session" option with the rules it showed, deny, deny with
   the user's reason) is applied here too. The rules (1 and 5) are asked once, in one walk
   (`RuleSet.answer`). Everything is read from the call's facts (`call_facts.py`): the command is
   split and the path resolved once, where the call is parsed.
"""

from __future__ import annotations

import glob
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import field, replace
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.modes import PERMISSION_MODES, PermissionMode
from wave_tui.config.paths import display_path
from wave_tui.config.records import record
from wave_tui.files.real_paths import is_inside, real_path
from wave_tui.permissions.call_facts import AnalysedCall, AnalysedUse, CommandFacts
from wave_tui.permissions.git_guard import HARDENED_GIT_ENV
from wave_tui.permissions.hook_verdict import NO_VERDICT, HookVerdict
from wave_tui.permissions.rules import PermissionRule, RuleSet, prefix_rule
from wave_tui.permissions.sandboxing import SANDBOX_OFF, CommandSandbox, SandboxChoice
from wave_tui.permissions.tool_table import BASH, WEB_FETCH, is_mcp_tool

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
    # allow_session: the rules of the option the user chose, as the dialog showed them (a grant
    # is scoped to what the user saw); empty from an approver that names only the kind.
    rules: tuple[PermissionRule, ...] = ()


# A bare choice is an answer with the scope's grant and no feedback (approvers return these).
PermissionReply = PermissionChoice | PermissionAnswer
# Who asks the user: (tool, arguments, why it needs approval) -> the reply.
Ask = Callable[[str, dict[str, Any], str], Awaitable[PermissionReply]]


@record
class RunProfile:
    """How an allowed call must be run: extra environment, a cap on its output file, the argv
    a Bash command runs under (the sandbox's)."""

    env: Mapping[str, str] = field(default_factory=dict)
    output_limit_bytes: int | None = None
    command_prefix: tuple[str, ...] = ()


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
        self.rules = RuleSet(allow or [], deny or [])
        self.sandbox: CommandSandbox | None = None  # set by the sandbox feature

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
    # req: CV15
    async def resolve(
        self, call: AnalysedCall, ask: Ask | None, hook: HookVerdict = NO_VERDICT
    ) -> Resolution:
        """The whole answer for one call: deny, allow, or ask (`ask` None: nobody can answer,
        a refusal) and apply the reply: allow once, grant what the chosen option showed for the
        session, deny (the model is told the user's own words when they gave any). `hook` is
        what the PreToolUse hooks said (`with_hook`)."""
        decision = with_hook(self.verdict(call), hook)
        if decision.behavior == "allow":
            return Resolution(None, decision.profile)
        if decision.behavior == "deny":
            return Resolution(f"Permission denied: {decision.reason}.")
        if ask is None:
            return Resolution(HEADLESS_REFUSAL.format(reason=decision.reason))
        reply = await ask(call.name, dict(call.args), decision.reason)
        answer = reply if isinstance(reply, PermissionAnswer) else PermissionAnswer(reply)
        if answer.choice == "deny":
            feedback = answer.feedback.strip()
            refusal = USER_REFUSAL_WITH_REASON if feedback else USER_REFUSAL
            return Resolution(refusal.format(tool=call.name, feedback=feedback))
        if answer.choice == "allow_session":
            self.rules.grant(answer.rules)  # what the chosen option showed (`with_shown_rules`)
        # A call the policy would have allowed keeps how it would have run (read-only, sandbox).
        return Resolution(None, decision.profile)

    def verdict(self, call: AnalysedCall) -> Decision:
        """deny / allow / ask for `call`, before anyone is asked; a Bash command the sandbox
        takes runs under its prefix whatever let it run."""
        command = call.facts.command
        choice = SANDBOX_OFF
        if command is not None and self.sandbox is not None:
            choice = self.sandbox.choice(command)
        decision = self._verdict(call, choice)
        if decision.behavior == "allow" and choice.kind == "sandboxed":
            return replace(
                decision, profile=replace(decision.profile, command_prefix=choice.prefix)
            )
        return decision

    # req: PM1
    def _verdict(self, call: AnalysedCall, sandbox: SandboxChoice) -> Decision:
        rules = self.rules.answer(call)
        if rules.denied is not None:
            return Decision("deny", f"denied by the permissions.deny rule {rules.denied}")
        row, facts = call.row, call.facts
        if row.approval == "never":
            return Decision("allow", "read-only tool")
        if row.approval == "children":
            return Decision("allow", "each call it makes is checked")
        if facts.command is not None and facts.command.read_only_here:
            return Decision("allow", "read-only command", READ_ONLY_COMMAND)
        if self.mode == "plan":
            return Decision("deny", "plan mode: no changes until the plan is approved")
        if self.mode == "bypassPermissions":
            return Decision("allow", "bypassPermissions mode")
        if rules.allowed is not None:
            return Decision("allow", f"allowed by the rule {rules.allowed}")
        if sandbox.kind == "sandboxed" and self.mode in ("default", "acceptEdits"):
            return Decision("allow", "runs in the sandbox")
        if sandbox.kind == "outside":
            return Decision("ask", f"{sandbox.reason}: it would run outside the sandbox")
        target = facts.target if row.writes_paths and not facts.in_git_folder else None
        if target is not None:
            if any(is_inside(target, zone) for zone in self.safe_zones):
                return Decision("allow", "inside a safe zone")
            if self.mode == "acceptEdits" and facts.in_project:
                return Decision("allow", "acceptEdits mode")
        if is_mcp_tool(call.name):
            return Decision("ask", f"{call.name} is an MCP tool: it needs approval unless allowed")
        return Decision("ask", f"{call.name} needs approval in {self.mode} mode")

    def decide(self, tool: str, args: dict[str, Any]) -> Decision:
        """`verdict` for a bare name and arguments."""
        return self.verdict(AnalysedUse.of(tool, args, self.workdir))

    # req: UX2
    def grant_for_session(
        self, tool: str, args: dict[str, Any], kind: GrantKind = "scope"
    ) -> tuple[PermissionRule, ...]:
        """Remember "always allow" for what the dialog showed, for the rest of the session: the
        option of that kind the dialog offered (the scope when no such option was offered)."""
        rules = grant_rules(AnalysedUse.of(tool, args, self.workdir), self.workdir, kind)
        self.rules.grant(rules)
        return rules


# req: PH1
def with_hook(decision: Decision, hook: HookVerdict) -> Decision:
    """The policy's decision with the PreToolUse hooks' word: their deny refuses in every mode,
    their allow spares only the question (never a deny rule or plan mode), their ask asks."""
    said = f": {hook.reason}" if hook.reason else ""
    if hook.behavior == "deny":
        return Decision("deny", f"denied by a PreToolUse hook{said}")
    if hook.behavior == "allow" and decision.behavior == "ask":
        return Decision("allow", f"allowed by a PreToolUse hook{said}", decision.profile)
    if hook.behavior == "ask" and decision.behavior == "allow":
        return Decision("ask", f"a PreToolUse hook asks{said}", decision.profile)
    return decision


def _grant_place(call: AnalysedCall, root: Path) -> tuple[Path, bool] | None:
    """(folder or file, is_folder) a session grant covers for a path tool, or None."""
    target = call.facts.target
    if not call.row.path_argument or target is None:
        return None
    if is_inside(target.parent, root):
        return target.parent, True
    return target, False  # outside the project: only this one file, never a folder (UX2)


# req: UX2
def session_rule(call: AnalysedCall, root: Path) -> PermissionRule:
    """The rule "Always this session" adds: the same tool, and the folder/pattern shown."""
    scope = _grant_place(call, root)
    if scope is not None:
        place, is_folder = scope
        escaped = glob.escape(str(place))
        return PermissionRule(call.name, f"{escaped}/*" if is_folder else escaped)
    if call.name == WEB_FETCH:
        host = call.facts.host
        return PermissionRule(call.name, f"domain:{host}" if host else _NOTHING)
    command = call.facts.command
    if command is not None:
        return PermissionRule(BASH, command.text or _NOTHING, literal=bool(command.text))
    if call.name == BASH:
        return PermissionRule(BASH, _NOTHING)
    return PermissionRule(call.name, None)


# req: UX2
def grant_label(call: AnalysedCall, root: Path) -> str:
    """What the dialog's "Always this session" choice says it will allow."""
    scope = _grant_place(call, root)
    if scope is not None:
        place, is_folder = scope
        where = "in" if is_folder else "to"
        shown = display_path(place, root)
        # The project root reads as words: "in ." looked like a typo.
        target = "the project" if shown == "." else shown
        return f"Always allow {call.name} {where} {target} this session"
    rule = session_rule(call, root)
    if call.name == WEB_FETCH and rule.pattern:
        return f"Always allow WebFetch from {rule.pattern.removeprefix('domain:')} this session"
    return f"Always allow {rule} this session"


# req: UX2
def with_shown_rules(reply: PermissionReply, call: AnalysedCall, root: Path) -> PermissionReply:
    """The reply as the policy applies it: an "always" reply carries the rules it grants. The
    dialog's does (the option the user saw); an approver's that names only the kind gets the
    rules of the option of that kind the dialog would have shown."""
    answer = reply if isinstance(reply, PermissionAnswer) else PermissionAnswer(reply)
    if answer.choice != "allow_session" or answer.rules:
        return reply
    return replace(answer, rules=grant_rules(call, root, answer.grant))


# req: UX2
def grant_rules(call: AnalysedCall, root: Path, kind: GrantKind) -> tuple[PermissionRule, ...]:
    """What the dialog's "always" option of `kind` grants (`grant_options` without the labels):
    the scope when no option of that kind is offered."""
    command = call.facts.command
    if kind == "prefix" and command is not None:
        prefixes = _prefix_rules(command)
        if prefixes:
            return prefixes
    return (session_rule(call, root),)


@record
class GrantOption:
    """One "always allow … this session" choice of the dialog: its label and what it grants."""

    kind: GrantKind
    label: str
    rules: tuple[PermissionRule, ...]


# req: CV10
def grant_options(call: AnalysedCall, root: Path) -> tuple[GrantOption, ...]:
    """The dialog's "always" choices, the scope last. Bash adds, before its exact command, the
    prefix rule of each part that needs approval (`git add . && git commit -m x`: `Bash(git
    add:*)` and `Bash(git commit:*)`): each rule covers only a command the user saw, and a
    command that cannot be split with certainty (substitutions, redirections) gets none."""
    scope = session_rule(call, root)
    label = grant_label(call, root)
    command = call.facts.command
    if command is None:
        return (GrantOption("scope", label, (scope,)),)
    if len(command.text) > LABEL_COMMAND_CHARS or "\n" in command.text:
        label = "Always allow this exact command this session"
    exact = GrantOption("scope", label, (scope,))
    prefixes = _prefix_rules(command)
    if not prefixes:
        return (exact,)
    names = " and ".join(map(str, prefixes))
    return (GrantOption("prefix", f"Always allow {names} this session", prefixes), exact)


def _prefix_rules(command: CommandFacts) -> tuple[PermissionRule, ...]:
    """The prefix option's rules: a prefix rule per part that needs one, that part exactly where
    it has no prefix; none at all unless at least one part has a prefix."""
    rules: list[PermissionRule] = []
    for part in command.parts or ():
        if not part.needs_rule:
            continue
        rule = prefix_rule(part) or PermissionRule(BASH, part.text, literal=True)
        if rule not in rules:
            rules.append(rule)
    if not any(rule.pattern and not rule.literal for rule in rules):
        return ()
    return tuple(rules)
