"""A hook's stdout as Claude Code's JSON hook output, when it is a JSON object.

Common fields: `continue` (false stops the turn, `stopReason` shown to the user),
`suppressOutput`, `systemMessage` (a warning line for the user), `decision` (`block`, and for
PreToolUse the older `approve`) with `reason`, and `hookSpecificOutput`: `permissionDecision`
(`allow`|`deny`|`ask`), `permissionDecisionReason` and `updatedInput` for PreToolUse,
`additionalContext` for the events that add to the model's context. Stdout that is not a JSON
object is plain output, used as it always was.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from wave_tui.config.records import record
from wave_tui.permissions.hook_verdict import HookBehavior, HookVerdict

TopDecision = Literal["block", "approve"]
_PERMISSION: dict[str, HookBehavior] = {"allow": "allow", "deny": "deny", "ask": "ask"}
# The older top-level PreToolUse decision, as its permissionDecision.
_LEGACY: dict[TopDecision, HookBehavior] = {"approve": "allow", "block": "deny"}


@record
class HookOutput:
    """The fields of one hook's JSON output that wave acts on (absent ones at their default)."""

    go_on: bool = True  # `continue`
    stop_reason: str = ""
    suppress_output: bool = False
    system_message: str = ""
    decision: TopDecision | None = None
    reason: str = ""
    permission: HookBehavior | None = None
    permission_reason: str = ""
    updated_input: Mapping[str, Any] | None = None
    additional_context: str = ""

    @property
    def blocks(self) -> bool:
        return self.decision == "block"

    # req: PH1
    def verdict(self) -> HookVerdict:
        """What this output says of a PreToolUse call (`permissionDecision` first, then the
        older top-level `decision`)."""
        behavior = self.permission
        reason = self.permission_reason
        if behavior is None and self.decision is not None:
            behavior, reason = _LEGACY[self.decision], self.reason
        stop = None if self.go_on else (self.stop_reason or "a hook said not to continue")
        return HookVerdict(behavior, reason.strip(), self.updated_input, stop)


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


# req: PH1
def parse_output(stdout: str) -> HookOutput | None:
    """The JSON output in `stdout`, or None when it is not a JSON object (plain output)."""
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    decision = data.get("decision")
    updated = specific.get("updatedInput")
    return HookOutput(
        go_on=data.get("continue", True) is not False,
        stop_reason=_text(data.get("stopReason")),
        suppress_output=data.get("suppressOutput") is True,
        system_message=_text(data.get("systemMessage")),
        decision=decision if decision in ("block", "approve") else None,
        reason=_text(data.get("reason")),
        permission=_PERMISSION.get(str(specific.get("permissionDecision"))),
        permission_reason=_text(specific.get("permissionDecisionReason")),
        updated_input=updated if isinstance(updated, dict) else None,
        additional_context=_text(specific.get("additionalContext")),
    )
