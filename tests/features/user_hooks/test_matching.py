"""Hook matchers, `if` filters and `async` hooks (PH2), and a hook's ask in the policy (PH1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent.user_hooks.test_engine import make_hooks
from tests.e2e.hook_helpers import configure, project_settings, script
from wave_tui.agent.extensions import ToolCallInfo
from wave_tui.features.user_hooks import Layer, parse_layers
from wave_tui.permissions.hook_verdict import HookVerdict
from wave_tui.permissions.policy import PermissionPolicy

DENY = json.dumps(
    {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}
)


def selected(matcher: str, tool: str) -> bool:
    group = {"matcher": matcher, "hooks": [{"command": "x"}]}
    config = parse_layers([Layer(Path("/s.json"), "user", {"hooks": {"PreToolUse": [group]}})])
    assert not config.problems
    return bool(config.for_event("PreToolUse", tool))


@pytest.mark.req("PH2")
@pytest.mark.parametrize(
    ("matcher", "tool", "expected"),
    [
        ("Write", "Write", True),
        ("Write", "WriteX", False),
        ("Write|Edit", "Edit", True),
        ("Write|Edit", "Read", False),
        ("Read*", "ReadMcpResource", True),
        ("Read*", "Glob", False),
        ("mcp__github__*", "mcp__github__issue", True),
        ("/^Edit/", "EditNotebook", True),
        ("/^Edit/", "NotebookEdit", False),
        ("Read.*", "ReadMcpResource", True),
        ("mcp__.*", "mcp__x__y", True),
        ("*", "Bash", True),
        ("", "Bash", True),
    ],
)
def test_ph2_matcher_forms(matcher: str, tool: str, expected: bool) -> None:
    assert selected(matcher, tool) is expected


@pytest.mark.req("PH2")
def test_ph2_a_bad_if_is_reported_and_never_guessed() -> None:
    entry = {"command": "x", "if": "Bash(unclosed"}
    hooks = {"PreToolUse": [{"hooks": [entry]}]}
    config = parse_layers([Layer(Path("/s.json"), "user", {"hooks": hooks})])
    assert config.hooks == ()
    assert len(config.problems) == 1 and ".if" in config.problems[0]


def call(project: Path, name: str, args: dict[str, Any]) -> ToolCallInfo:
    return ToolCallInfo.of("c1", name, args, project)


@pytest.mark.req("PH2")
async def test_ph2_if_filters_with_the_permission_rule_matcher(
    project: Path, isolated_home: Path
) -> None:
    log = project / "ran.log"
    hook = script(project, "deny.sh", f"echo ran >> {log}\necho '{DENY}'\n")
    configure(project_settings(project), "PreToolUse", str(hook), **{"if": "Bash(git commit:*)"})
    hooks, _ = make_hooks(project, isolated_home, mode="invoker")
    status = await hooks.decide(call(project, "Bash", {"command": "git status"}))
    assert status.behavior is None and not log.exists()
    compound = {"command": "git add x && git commit -m y"}
    assert (await hooks.decide(call(project, "Bash", compound))).behavior == "deny"
    assert (await hooks.decide(call(project, "Read", {"file_path": "a"}))).behavior is None
    assert log.read_text().split() == ["ran"]


@pytest.mark.req("PH2")
async def test_ph2_an_async_hook_never_decides_and_the_call_does_not_wait(
    project: Path, isolated_home: Path
) -> None:
    gate = project / "gate"
    done = project / "done"
    body = f"while [ ! -e {gate} ]; do sleep 0.05; done\ntouch {done}\necho '{DENY}'\n"
    hook = script(project, "slow.sh", body)
    configure(project_settings(project), "PreToolUse", str(hook), **{"async": True})
    hooks, _ = make_hooks(project, isolated_home, mode="invoker")
    verdict = await hooks.decide(call(project, "Bash", {"command": "rm -rf junk"}))
    assert verdict.behavior is None and not done.exists()
    gate.touch()
    await hooks.aclose()
    assert done.exists()


@pytest.mark.req("PH1")
async def test_ph1_a_hooks_ask_asks_where_the_policy_would_allow(project: Path) -> None:
    asked: list[tuple[str, str]] = []

    async def ask(tool: str, args: dict[str, Any], reason: str) -> Any:
        asked.append((tool, reason))
        return "deny"

    policy = PermissionPolicy(project, "bypassPermissions")
    target = call(project, "Write", {"file_path": "o.txt", "content": "x"})
    assert (await policy.resolve(target, ask)).refusal is None
    answer = await policy.resolve(target, ask, HookVerdict("ask", "check the license header"))
    assert answer.refusal is not None and "denied by the user" in answer.refusal
    assert asked == [("Write", "a PreToolUse hook asks: check the license header")]
    denied = await policy.resolve(target, ask, HookVerdict("deny", "frozen"))
    assert denied.refusal is not None and "frozen" in denied.refusal
