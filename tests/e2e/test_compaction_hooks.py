"""PreCompact / PostCompact / SessionStart("compact") and PermissionRequest with real hook
scripts (HK7, HK6, HK2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.hook_helpers import configure, project_settings, script
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import chats
from wave_tui.agent import events as ev
from wave_tui.session.facade import create_session
from wave_tui.session.types import AgentOptions


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def summary_requests(server: ModelServer) -> list[dict[str, Any]]:
    return [b for b in chats(server) if "tools" not in b]


@pytest.mark.req("HK7")
def test_hk7_pre_compact_stdout_joins_the_instructions_and_post_compact_gets_the_summary(
    model_server: ModelServer, project: Path
) -> None:
    pre = script(project, "pre.sh", 'cat > "$WAVE_PROJECT_DIR/pre.json"\necho keep the API notes\n')
    post = script(project, "post.sh", 'cat > "$WAVE_PROJECT_DIR/post.json"\n')
    configure(project_settings(project), "PreCompact", str(pre))
    configure(project_settings(project), "PostCompact", str(post))
    model_server.enqueue(text("one"), text("two"), text("The summary of it all."))
    assert run_wave("-p", "first", cwd=project, server=model_server).returncode == 0
    assert run_wave("-p", "second", "-c", cwd=project, server=model_server).returncode == 0
    proc = run_wave("-p", "/compact focus on tests", "-c", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (summary,) = summary_requests(model_server)
    request = summary["messages"][-1]["content"]
    assert "focus on tests" in request and "keep the API notes" in request
    pre_payload = json.loads((project / "pre.json").read_text())
    assert pre_payload["hook_event_name"] == "PreCompact"
    assert pre_payload["trigger"] == "manual"
    assert pre_payload["custom_instructions"] == "focus on tests"
    post_payload = json.loads((project / "post.json").read_text())
    assert post_payload["hook_event_name"] == "PostCompact"
    assert post_payload["summary"] == "The summary of it all."


@pytest.mark.req("HK6")
async def test_hk6_session_start_source_is_compact_after_a_compaction_and_clear_after_clear(
    model_server: ModelServer, project: Path
) -> None:
    start = script(
        project,
        "start.sh",
        "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"source\"])' "
        '>> "$WAVE_PROJECT_DIR/sources.txt"\n',
    )
    configure(project_settings(project), "SessionStart", str(start))
    model_server.enqueue(text("one"), text("two"), text("summary"), text("three"), text("four"))
    session = create_session(
        AgentOptions(workdir=project, headless=True, environ=model_server.env())
    )
    try:
        session.start()
        await session.run_turn("first")
        await session.run_turn("second")
        assert await session.compact()
        await session.run_turn("third")
        session.clear()
        await session.run_turn("fourth")
    finally:
        await session.close()
    assert (project / "sources.txt").read_text().split() == ["startup", "compact", "clear"]


@pytest.mark.req("HK6")
async def test_hk6_a_clear_right_after_a_compaction_starts_a_clear_session(
    model_server: ModelServer, project: Path
) -> None:
    start = script(
        project,
        "start.sh",
        "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"source\"])' "
        '>> "$WAVE_PROJECT_DIR/sources.txt"\n',
    )
    configure(project_settings(project), "SessionStart", str(start))
    model_server.enqueue(text("one"), text("summary"), text("two"))
    session = create_session(
        AgentOptions(workdir=project, headless=True, environ=model_server.env())
    )
    try:
        session.start()
        await session.run_turn("first")
        assert await session.compact()
        session.clear()  # before any prompt after the compaction
        await session.run_turn("second")
    finally:
        await session.close()
    assert (project / "sources.txt").read_text().split() == ["startup", "clear"]


@pytest.mark.req("HK2")
async def test_hk2_a_permission_request_hook_denies_before_the_user_is_asked(
    model_server: ModelServer, project: Path
) -> None:
    hook = script(
        project, "perm.sh", 'cat > "$WAVE_PROJECT_DIR/perm.json"\necho "ask the lead" >&2\nexit 2\n'
    )
    configure(project_settings(project), "PermissionRequest", str(hook), matcher="Bash")
    asked: list[str] = []

    async def approver(tool: str, args: dict[str, Any], reason: str) -> ev.PermissionChoice:
        asked.append(tool)
        return "allow_once"

    model_server.enqueue(
        tool_call("Bash", {"command": "touch made.txt"}),
        tool_call("Write", {"file_path": "w.txt", "content": "x"}),
        text("done"),
    )
    session = create_session(
        AgentOptions(workdir=project, environ=model_server.env()), approver=approver
    )
    notices: list[str] = []
    session.subscribe(lambda e: notices.append(e.text) if isinstance(e, ev.Notice) else None)
    try:
        session.start()
        request = next(
            iter(session.permissions.trust_requests()), None
        )  # the app: project hooks run once trusted
        assert request is not None and request.kind == "hooks"
        await session.permissions.grant_trust([request])
        result = await session.run_turn("go")
    finally:
        await session.close()
    assert result.status == "completed"
    assert asked == ["Write"]  # Bash was denied by the hook, the user never saw it
    assert not (project / "made.txt").exists() and (project / "w.txt").exists()
    payload = json.loads((project / "perm.json").read_text())
    assert payload["hook_event_name"] == "PermissionRequest" and payload["tool_name"] == "Bash"
    assert any("ask the lead" in n for n in notices)
