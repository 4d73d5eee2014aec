"""A permission answer on the daemon's socket: what an attached front end's dialog chose (once,
always — with the rules the dialog showed —, or no with the user's reason) as `respond` fields,
and back into the answer the session's question waits for."""

from __future__ import annotations

from typing import Any, get_args

from wave_tui.permissions.policy import (
    GrantKind,
    PermissionAnswer,
    PermissionChoice,
    PermissionReply,
)
from wave_tui.permissions.rules import PermissionRule

_CHOICES: tuple[str, ...] = get_args(PermissionChoice)
_GRANTS: tuple[str, ...] = get_args(GrantKind)


def reply_fields(reply: PermissionReply) -> dict[str, Any]:
    """The `respond` request's fields for a dialog's answer (`allow` for older daemons)."""
    if isinstance(reply, str):
        return {"allow": reply != "deny", "choice": reply}
    return {
        "allow": reply.choice != "deny",
        "choice": reply.choice,
        "grant": reply.grant,
        "feedback": reply.feedback,
        "rules": [str(rule) for rule in reply.rules],
    }


# req: DM2
def reply_of(request: dict[str, Any]) -> PermissionReply | None:
    """The answer a `respond` carries beyond allow once / deny (an attached app's "always" or
    "no, because"); None when it carries only `allow` (`wave daemon respond`)."""
    choice = request.get("choice")
    if choice not in _CHOICES:
        return None
    grant = request.get("grant", "scope")
    feedback = request.get("feedback", "")
    raw_rules = request.get("rules", [])
    rules = tuple(
        rule
        for text in (raw_rules if isinstance(raw_rules, list) else [])
        if isinstance(text, str) and (rule := PermissionRule.parse(text)) is not None
    )
    return PermissionAnswer(
        choice,
        grant if grant in _GRANTS else "scope",
        feedback if isinstance(feedback, str) else "",
        rules,
    )
