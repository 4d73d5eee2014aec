"""`PermissionPolicy.resolve`: the one answer for a call — deny, allow, ask, and the reply
applied (allow once, the chosen "always" option granted, deny with the user's reason)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.policy import (
    READ_ONLY_COMMAND,
    Ask,
    PermissionAnswer,
    PermissionPolicy,
    PermissionReply,
    grant_options,
    grant_rules,
)
from wave_tui.permissions.rules import RuleSet


def replying(reply: PermissionReply, asked: list[str]) -> Ask:
    async def ask(tool: str, args: dict[str, Any], reason: str) -> PermissionReply:
        asked.append(f"{tool}: {reason}")
        return reply

    return ask


@pytest.mark.req("PM4")
async def test_resolve_asks_once_and_a_session_grant_answers_the_next_call(
    tmp_path: Path,
) -> None:
    policy = PermissionPolicy(tmp_path)
    asked: list[str] = []
    call = AnalysedUse.of("Bash", {"command": "git commit -m x"}, tmp_path)
    prefix = grant_rules(call, tmp_path, "prefix")
    granted = await policy.resolve(
        call, replying(PermissionAnswer("allow_session", "prefix", rules=prefix), asked)
    )
    assert granted.refusal is None and len(asked) == 1
    again = await policy.resolve(
        AnalysedUse.of("Bash", {"command": "git commit -m y"}, tmp_path), None
    )
    assert again.refusal is None  # Bash(git commit:*) was granted: nobody is asked
    assert [str(r) for r in policy.session_allow] == ["Bash(git commit:*)"]


@pytest.mark.req("CV15")
async def test_resolve_applies_a_denial_with_the_users_reason(tmp_path: Path) -> None:
    policy = PermissionPolicy(tmp_path)
    asked: list[str] = []
    call = AnalysedUse.of("Write", {"file_path": "a.txt", "content": "x"}, tmp_path)
    denied = await policy.resolve(
        call, replying(PermissionAnswer("deny", feedback="use b.txt"), asked)
    )
    assert denied.refusal is not None and denied.refusal.endswith("use b.txt")
    once = await policy.resolve(call, replying("allow_once", asked))
    assert once.refusal is None and policy.session_allow == []
    headless = await policy.resolve(call, None)
    assert headless.refusal is not None and "headless" in headless.refusal


async def test_resolve_denies_before_anyone_is_asked_and_gives_the_read_only_profile(
    tmp_path: Path,
) -> None:
    policy = PermissionPolicy(tmp_path, deny=["Bash(rm *)"])
    asked: list[str] = []
    ask = replying("allow_once", asked)
    denied = await policy.resolve(
        AnalysedUse.of("Bash", {"command": "ls; rm -rf x"}, tmp_path), ask
    )
    assert denied.refusal == "Permission denied: denied by the permissions.deny rule Bash(rm *)."
    read_only = await policy.resolve(AnalysedUse.of("Bash", {"command": "ls"}, tmp_path), ask)
    assert read_only.refusal is None and read_only.profile == READ_ONLY_COMMAND
    assert asked == []


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("Bash", {"command": "git add . && git commit -m x"}),
        ("Bash", {"command": "npm test"}),
        ("Write", {"file_path": "src/a.py"}),
        ("WebFetch", {"url": "https://example.com/x"}),
    ],
)
@pytest.mark.req("UX2")
def test_grant_rules_are_the_rules_of_the_option_the_dialog_offers(
    tmp_path: Path, tool: str, args: dict[str, Any]
) -> None:
    options = grant_options(AnalysedUse.of(tool, args, tmp_path), tmp_path)
    for kind in ("prefix", "scope"):
        chosen = next((o for o in options if o.kind == kind), options[-1])
        assert grant_rules(AnalysedUse.of(tool, args, tmp_path), tmp_path, kind) == chosen.rules


def test_the_rule_set_answers_deny_before_allow_in_one_call(tmp_path: Path) -> None:
    rules = RuleSet(allow=["Bash(git *)"], deny=["Bash(git push *)"])
    push = rules.answer(AnalysedUse.of("Bash", {"command": "git push origin"}, tmp_path))
    assert str(push.denied) == "Bash(git push *)" and push.allowed is None
    status = rules.answer(AnalysedUse.of("Bash", {"command": "git status"}, tmp_path))
    assert status.denied is None and str(status.allowed) == "Bash(git *)"


@pytest.mark.req("UX2")
async def test_a_session_grant_is_the_rules_the_chosen_option_showed(tmp_path: Path) -> None:
    """The reply carries the rules of the option the user chose; the policy grants exactly
    those, not rules it works out again."""
    policy = PermissionPolicy(tmp_path)
    call = AnalysedUse.of("Bash", {"command": "git add . && git commit -m x"}, tmp_path)
    options = grant_options(call, tmp_path)
    exact = next(option for option in options if option.kind == "scope")
    reply = PermissionAnswer("allow_session", exact.kind, rules=exact.rules)
    granted = await policy.resolve(call, replying(reply, []))
    assert granted.refusal is None
    assert tuple(policy.session_allow) == exact.rules
    other = AnalysedUse.of("Bash", {"command": "git commit -m y"}, tmp_path)
    assert (await policy.resolve(other, None)).refusal is not None  # only what was shown
