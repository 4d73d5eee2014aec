"""What PreToolUse hooks said of one call, as the permission pipeline takes it.

A hook's deny refuses the call in every permission mode (the pipeline refuses before the policy
is asked); its allow only spares the question (a deny rule or plan mode still refuse); its ask
asks even where the policy would have allowed; `updated_input` replaces the call's arguments
before anything (guards, rules, the question) looks at them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, Literal

from wave_tui.config.records import record

HookBehavior = Literal["allow", "ask", "deny"]
# When several hooks answer one call, the strictest wins.
_STRICTNESS: dict[HookBehavior | None, int] = {None: 0, "allow": 1, "ask": 2, "deny": 3}


@record
class HookVerdict:
    """The answer of the PreToolUse hooks for one call (all of them merged)."""

    behavior: HookBehavior | None = None
    reason: str = ""
    updated_input: Mapping[str, Any] | None = None
    # `continue: false`: the turn stops after this call is refused, with this reason.
    stop: str | None = None


NO_VERDICT = HookVerdict()


# req: PH1
def merge_verdicts(verdicts: Iterable[HookVerdict]) -> HookVerdict:
    """One verdict from several hooks' (in order): the strictest behaviour with its reasons, the
    last replaced input, the first stop."""
    merged = NO_VERDICT
    reasons: dict[HookBehavior | None, list[str]] = {}
    for verdict in verdicts:
        if verdict.reason:
            reasons.setdefault(verdict.behavior, []).append(verdict.reason)
        if _STRICTNESS[verdict.behavior] > _STRICTNESS[merged.behavior]:
            merged = replace(merged, behavior=verdict.behavior)
        if verdict.updated_input is not None:
            merged = replace(merged, updated_input=verdict.updated_input)
        if merged.stop is None and verdict.stop is not None:
            merged = replace(merged, stop=verdict.stop)
    return replace(merged, reason="\n".join(reasons.get(merged.behavior, [])))
