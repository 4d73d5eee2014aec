"""UserHooks in process: config parsing, trust gating, async hooks, compaction events."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.e2e.hook_helpers import configure, script
from wave_tui.agent.extensions import ToolCallInfo
from wave_tui.config.paths import WavePaths
from wave_tui.config.trust import TrustStore
from wave_tui.features.user_hooks import Layer, SessionInfo, UserHooks, live_layers, parse_layers


def make_hooks(project: Path, home: Path, mode: str = "ask") -> tuple[UserHooks, list[str]]:
    paths = WavePaths.for_workdir(project)
    lines: list[str] = []
    hooks = UserHooks(
        project_root=paths.project_root,
        layers=live_layers(object(), paths),
        session=lambda: SessionInfo("s1", home / "t.jsonl"),
        notify=lines.append,
        trust=TrustStore(paths.trust_file, mode),  # type: ignore[arg-type]
    )
    return hooks, lines


@pytest.mark.req("HK2")
def test_hk2_parse_layers_concatenates_and_reports_bad_entries_in_one_line_each() -> None:
    layers = [
        Layer(Path("/u.json"), "user", {"hooks": {"Stop": [{"hooks": [{"command": "a"}]}]}}),
        Layer(
            Path("/p.json"),
            "project",
            {
                "hooks": {
                    "PreToolUse": [{"matcher": "Write", "hooks": [{"command": "b", "timeout": 5}]}],
                    "Bogus": [],
                    "Stop": [{"hooks": [{"command": ""}, {"command": "c", "async": True}]}],
                }
            },
        ),
    ]
    config = parse_layers(layers)
    assert [(h.event, h.command, h.scope) for h in config.hooks] == [
        ("Stop", "a", "user"),
        ("PreToolUse", "b", "project"),
        ("Stop", "c", "project"),
    ]
    assert config.hooks[0].timeout_s == 600 and config.hooks[1].timeout_s == 5
    assert config.hooks[2].run_async
    assert [h.command for h in config.for_event("PreToolUse", "Write")] == ["b"]
    assert config.for_event("PreToolUse", "WriteX") == []  # the regex matches the whole name
    assert len(config.problems) == 2
    assert "unknown hook event" in config.problems[0] and "non-empty" in config.problems[1]


@pytest.mark.req("HK10")
async def test_hk10_project_hooks_wait_for_trust_and_a_changed_set_asks_again(
    project: Path, isolated_home: Path
) -> None:
    log = project / "log.txt"
    configure(project / ".wave" / "settings.json", "UserPromptSubmit", f"echo project >> {log}")
    configure(isolated_home / ".wave" / "settings.json", "UserPromptSubmit", f"echo user >> {log}")
    hooks, lines = make_hooks(project, isolated_home)
    await hooks.on_turn_start("hi")
    assert log.read_text().split() == ["user"]  # the user's own hooks need no trust
    assert any("not trusted" in line for line in lines)
    request = hooks.trust_needed()
    assert request is not None and request.kind == "hooks"
    assert request.items == (f"UserPromptSubmit *: echo project >> {log}",)
    await hooks.grant_trust(request)
    assert json.loads((isolated_home / ".wave" / "trust.json").read_text())
    await hooks.on_turn_start("again")
    # Both files' hooks run side by side: which line lands first is not fixed.
    assert sorted(log.read_text().split()) == ["project", "user", "user"]
    configure(project / ".wave" / "settings.json", "Stop", "echo new")
    assert hooks.trust_needed() is not None  # a changed set asks again
    fresh, _ = make_hooks(project, isolated_home)
    await fresh.on_turn_start("third")
    assert sorted(log.read_text().split()) == ["project", "user", "user", "user"]


@pytest.mark.req("HK10")
async def test_hk10_invoker_mode_runs_project_hooks_without_asking(
    project: Path, isolated_home: Path
) -> None:
    log = project / "log.txt"
    configure(project / ".wave" / "settings.json", "UserPromptSubmit", f"echo project >> {log}")
    hooks, _ = make_hooks(project, isolated_home, mode="invoker")
    await hooks.on_turn_start("hi")
    assert log.read_text().split() == ["project"]
    assert hooks.trust_needed() is None


@pytest.mark.req("HK1")
async def test_hk1_live_reload_a_new_hook_runs_from_the_next_event(
    project: Path, isolated_home: Path
) -> None:
    hooks, _ = make_hooks(project, isolated_home, mode="invoker")
    call = ToolCallInfo.of("c1", "Bash", {"command": "ls"}, project)
    assert (await hooks.decide(call)).behavior is None
    guard = script(project, "guard.sh", "echo 'no bash' >&2\nexit 2\n")
    configure(project / ".wave" / "settings.json", "PreToolUse", str(guard), matcher="Bash")
    verdict = await hooks.decide(call)
    assert verdict.behavior == "deny" and "no bash" in verdict.reason


@pytest.mark.req("HK5")
async def test_hk5_async_hooks_do_not_block_and_are_awaited_on_close(
    project: Path, isolated_home: Path
) -> None:
    gate = project / "gate"
    done = project / "done"
    hook = script(project, "slow.sh", f"while [ ! -e {gate} ]; do sleep 0.05; done\ntouch {done}\n")
    configure(project / ".wave" / "settings.json", "PreToolUse", str(hook), **{"async": True})
    hooks, _ = make_hooks(project, isolated_home, mode="invoker")
    verdict = await hooks.decide(ToolCallInfo.of("c1", "Read", {"file_path": "x"}, project))
    assert verdict.behavior is None
    assert not done.exists()  # check returned while the hook still waits for the gate
    gate.touch()
    await hooks.aclose()
    assert done.exists()


@pytest.mark.req("HK7")
async def test_hk7_pre_compact_stdout_and_post_compact_summary(
    project: Path, isolated_home: Path
) -> None:
    seen = project / "post.json"
    configure(project / ".wave" / "settings.json", "PreCompact", "echo keep the API notes")
    configure(project / ".wave" / "settings.json", "PostCompact", f"cat > {seen}")
    hooks, _ = make_hooks(project, isolated_home, mode="invoker")
    assert await hooks.run_pre_compact("manual", "focus on tests") == "keep the API notes"
    await hooks.run_post_compact("auto", "the summary text")
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "PostCompact" and payload["summary"] == "the summary text"


@pytest.mark.req("HK4")
async def test_hk4_permission_request_exit_2_denies(project: Path, isolated_home: Path) -> None:
    configure(
        project / ".wave" / "settings.json",
        "PermissionRequest",
        "echo 'ask the lead' >&2; exit 2",
        matcher="Bash",
    )
    hooks, _ = make_hooks(project, isolated_home, mode="invoker")
    assert (
        await hooks.run_permission_request(ToolCallInfo.of("c", "Bash", {}, project))
        == "ask the lead"
    )
    assert await hooks.run_permission_request(ToolCallInfo.of("c", "Write", {}, project)) is None


@pytest.mark.req("HK6")
async def test_hk6_session_start_runs_once_then_again_after_clear(
    project: Path, isolated_home: Path
) -> None:
    log = project / "sources.txt"
    configure(
        project / ".wave" / "settings.json",
        "SessionStart",
        f"python3 -c 'import json,sys; print(json.load(sys.stdin)[\"source\"])' >> {log}; echo ctx",
    )
    hooks, _ = make_hooks(project, isolated_home, mode="invoker")
    first = await hooks.on_turn_start("a")
    assert first.context == ("ctx",)
    assert (await hooks.on_turn_start("b")).context == ()
    hooks.on_messages_restored([])
    await hooks.on_turn_start("c")
    assert log.read_text().split() == ["startup", "clear"]
    await asyncio.sleep(0)
