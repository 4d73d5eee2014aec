"""The choices of `session/request_permission` and what each one does to the session.

"Allow always" is the app's `a`: the dialog's first "always … this session" option (for Bash
the prefix rule of each part that needs approval, a destructive program's command exactly),
granted to the session's permission policy, so later calls it covers run without a question.
"Reject always" refuses, for the rest of the session and without asking again, the calls that
same rule would have allowed.
"""

from __future__ import annotations

from typing import Any

from acp import schema

from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.policy import GrantOption, PermissionPolicy, grant_options
from wave_tui.permissions.rules import RuleSet

ALLOW_ONCE = "allow"
ALLOW_ALWAYS = "allow_always"
REJECT_ONCE = "reject"
REJECT_ALWAYS = "reject_always"
REJECTED = "the user rejected this call in the client"
REJECTED_ALWAYS = "the user rejected calls like this one in the client for this session"


def _first_grant(policy: PermissionPolicy, name: str, args: dict[str, Any]) -> GrantOption:
    root = policy.workdir
    return grant_options(AnalysedUse.of(name, args, root), root)[0]


class SessionPermissions:
    """One ACP session's answers: its policy (where "always allow" is granted) and the rules
    the user rejected for good."""

    def __init__(self, policy: PermissionPolicy) -> None:
        self._policy = policy
        self._rejected = RuleSet()

    def rejected(self, name: str, args: dict[str, Any]) -> bool:
        """Whether an earlier "reject always" covers this call."""
        call = AnalysedUse.of(name, args, self._policy.workdir)
        return self._rejected.answer(call).denied is not None

    # req: MA12
    def options(self, name: str, args: dict[str, Any]) -> list[schema.PermissionOption]:
        """Allow once, allow always (named by what it grants), reject once, reject always."""
        grant = _first_grant(self._policy, name, args)
        refuse = grant.label.replace("Always allow", "Always reject", 1)
        return [
            schema.PermissionOption(option_id=ALLOW_ONCE, name="Allow", kind="allow_once"),
            schema.PermissionOption(option_id=ALLOW_ALWAYS, name=grant.label, kind="allow_always"),
            schema.PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"),
            schema.PermissionOption(option_id=REJECT_ALWAYS, name=refuse, kind="reject_always"),
        ]

    # req: MA12
    def answer(self, option_id: str | None, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """The `can_use_tool` answer for the chosen option (None: the question was cancelled),
        after granting or remembering what an "always" option covers."""
        if option_id == ALLOW_ALWAYS:
            self._policy.rules.grant(_first_grant(self._policy, name, args).rules)
        if option_id in (ALLOW_ONCE, ALLOW_ALWAYS):
            return {"behavior": "allow"}
        if option_id == REJECT_ALWAYS:
            self._rejected.deny.extend(_first_grant(self._policy, name, args).rules)
            return {"behavior": "deny", "message": REJECTED_ALWAYS}
        return {"behavior": "deny", "message": REJECTED}
