"""Compaction you can steer and trace (MR4): a PreCompact hook can block it or add instructions;
turns no extraction has seen are extracted before they are summarised away; the compaction row
and `wave sessions show` say what was dropped and which files came back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.hook_helpers import configure, script
from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui.agent import events as ev
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions

pytestmark = pytest.mark.req("MR4")


def user_settings() -> Path:
    return Path.home() / ".wave" / "settings.json"


def set_user(**values: Any) -> None:
    path = user_settings()
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update(values)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def is_summary(body: dict[str, Any]) -> bool:
    return "tools" not in body and is_main(body)


def is_turn(body: dict[str, Any]) -> bool:
    return "tools" in body and is_main(body)


def started(project: Path, server: ModelServer) -> tuple[AgentSession, list[str]]:
    session = create_session(AgentOptions(workdir=project, headless=True, environ=server.env()))
    notices: list[str] = []
    session.subscribe(lambda e: notices.append(e.text) if isinstance(e, ev.Notice) else None)
    session.start()
    return session, notices


@pytest.mark.parametrize(
    "hook",
    [
        'echo "a release is being cut" >&2\nexit 2\n',
        'echo \'{"decision": "block", "reason": "a release is being cut"}\'\n',
    ],
    ids=["exit-2", "decision-block"],
)
async def test_a_pre_compact_hook_blocks_the_compaction(
    model_server: ModelServer, project: Path, hook: str
) -> None:
    set_user(autoMemoryEnabled=False)
    configure(user_settings(), "PreCompact", str(script(project, "pre.sh", hook)))
    model_server.enqueue(text("one"), text("two"), when=is_turn)
    session, notices = started(project, model_server)
    try:
        await session.run_turn("first")
        await session.run_turn("second")
        before = [m.id for m in session.messages()]
        assert not await session.compact()
        assert [m.id for m in session.messages()] == before
    finally:
        await session.close()
    assert not any(is_summary(r.body) for r in model_server.requests)
    assert "compaction blocked by a PreCompact hook: a release is being cut" in notices


async def test_additional_context_steers_the_summary(
    model_server: ModelServer, project: Path
) -> None:
    set_user(autoMemoryEnabled=False)
    output = {
        "hookSpecificOutput": {
            "hookEventName": "PreCompact",
            "additionalContext": "keep every port number",
        }
    }
    hook = script(project, "pre.sh", f"echo '{json.dumps(output)}'\n")
    configure(user_settings(), "PreCompact", str(hook))
    model_server.enqueue(text("one"), text("two"), when=is_turn)
    model_server.enqueue(text("The summary."), when=is_summary)
    session, _notices = started(project, model_server)
    try:
        await session.run_turn("first")
        await session.run_turn("second")
        assert await session.compact()
    finally:
        await session.close()
    (summary,) = [r.body for r in model_server.requests if is_summary(r.body)]
    asked = summary["messages"][-1]["content"]
    assert "keep every port number" in asked and "hookSpecificOutput" not in asked


async def test_turns_no_extraction_saw_are_extracted_before_the_summary(
    model_server: ModelServer, project: Path
) -> None:
    set_user(autoMemoryFrequency=5)  # no extraction after the two turns on its own
    model_server.enqueue(text("one"), text("two"), when=is_turn)
    model_server.enqueue(text("nothing worth saving"), when=is_fork)
    model_server.enqueue(text("The summary."), when=is_summary)
    session, notices = started(project, model_server)
    try:
        await session.run_turn("the port is 8080")
        await session.run_turn("second")
        assert not any(is_fork(r.body) for r in model_server.requests)
        assert await session.compact()
    finally:
        await session.close()
    kinds = [
        "fork" if is_fork(r.body) else "summary" if is_summary(r.body) else "turn"
        for r in model_server.requests
    ]
    assert kinds == ["turn", "turn", "fork", "summary"]
    fork = next(r.body for r in model_server.requests if is_fork(r.body))
    assert "the port is 8080" in json.dumps(fork["messages"])
    assert "extracting memories before the compaction" in notices


async def test_no_flush_when_memory_writes_are_off_or_nothing_is_unseen(
    model_server: ModelServer, project: Path
) -> None:
    set_user(autoMemoryFrequency=5, autoMemoryWrites="off")
    model_server.enqueue(text("one"), text("two"), when=is_turn)
    model_server.enqueue(text("The summary."), when=is_summary)
    session, _notices = started(project, model_server)
    try:
        await session.run_turn("first")
        await session.run_turn("second")
        assert await session.compact()
    finally:
        await session.close()
    assert not any(is_fork(r.body) for r in model_server.requests)


async def test_the_row_and_sessions_show_say_what_was_dropped_and_restored(
    model_server: ModelServer, project: Path
) -> None:
    set_user(autoMemoryEnabled=False)
    (project / "a.py").write_text("PORT = 8080\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": str(project / "a.py")}),
        text("read it"),
        text("two"),
        text("three"),
        when=is_turn,
    )
    model_server.enqueue(text("The summary."), when=is_summary)
    session, notices = started(project, model_server)
    try:
        await session.run_turn("read a.py")
        await session.run_turn("second")
        await session.run_turn("third")
        assert await session.compact()
        sid = session.service.session_id if session.service is not None else ""
    finally:
        await session.close()
    row = next(n for n in notices if n.startswith("compacted "))
    assert "dropped 4 messages (1 file read, 1 tool result); restored " in row
    assert row.split("restored ", 1)[1].startswith(str(project / "a.py"))

    shown = run_wave("sessions", "show", sid, "--json", cwd=project)
    assert shown.returncode == 0, shown.stderr
    (compaction,) = json.loads(shown.stdout)["compactions"]
    assert compaction["dropped"] == {"messages": 4, "file_reads": 1, "tool_results": 1}
    assert compaction["restored"] == [str(project / "a.py")]
    plain = run_wave("sessions", "show", sid, cwd=project).stdout
    assert "dropped 4 messages (1 file read, 1 tool result); restored" in plain
