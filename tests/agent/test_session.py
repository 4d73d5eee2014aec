"""The facade the front ends use: typed status, state-carrying events, memory and settings (U1, U2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from wave_tui.agent import events as ev
from wave_tui.config.paths import WavePaths
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions, EditableSettings, EntryError


@pytest.mark.req("U2")
async def test_u2_status_changed_carries_busy_usage_and_memory_countdown(
    make_service, model_server: ModelServer
) -> None:
    model_server.enqueue(text("hello there"))
    session = AgentSession(make_service())
    statuses: list[ev.StatusChanged] = []
    session.subscribe(lambda e: statuses.append(e) if isinstance(e, ev.StatusChanged) else None)
    before = session.status()
    assert before.configured and before.model == "test-model" and not before.busy
    assert before.context_tokens is None and before.queue == ()
    result = await session.run_turn("hi")
    await session.close()
    assert result.status == "completed"
    assert any(s.status.busy for s in statuses)
    last = statuses[-1].status
    assert not last.busy
    assert last.context_tokens is not None and last.context_tokens > 0
    assert last.context_window is not None and not last.context_estimated
    assert last.permission_mode == "default"


@pytest.mark.req("U1")
async def test_u1_memory_add_and_delete_go_through_the_session_and_announce_changes(
    project: Path, isolated_home: Path
) -> None:
    paths = WavePaths(project_root=project.resolve(), home=isolated_home.resolve())
    session = AgentSession.offline(paths)
    changed: list[ev.MemoryChanged] = []
    session.subscribe(lambda e: changed.append(e) if isinstance(e, ev.MemoryChanged) else None)
    assert not session.available
    added = await session.memory.add("project", "Run the tests with pytest")
    duplicate = await session.memory.add("project", "run the tests with pytest")
    assert added.added and not duplicate.added
    assert paths.project_agents_md.read_text(encoding="utf-8") == "- Run the tests with pytest\n"
    assert [e.paths for e in changed] == [(paths.project_agents_md,)]
    entries = [e for e in await session.memory.entries() if e.scope == "project"]
    assert [e.title for e in entries] == ["Run the tests with pytest"]
    deleted = await session.memory.delete(entries[0])
    assert deleted.id == entries[0].id and len(changed) == 2
    assert "Run the tests" not in paths.project_agents_md.read_text(encoding="utf-8")
    with pytest.raises(EntryError):
        await session.memory.show("project:AGENTS.md:9")
    await session.close()


@pytest.mark.req("U1")
async def test_u1_settings_save_and_read_back_with_a_status_event(
    project: Path, isolated_home: Path
) -> None:
    paths = WavePaths(project_root=project.resolve(), home=isolated_home.resolve())
    session = AgentSession.offline(paths, environ={})
    statuses: list[ev.StatusChanged] = []
    session.subscribe(lambda e: statuses.append(e) if isinstance(e, ev.StatusChanged) else None)
    await session.settings.save(auto_memory_frequency=3, language="English")
    assert json.loads(paths.user_settings.read_text(encoding="utf-8"))["language"] == "English"
    assert await session.settings.read() == EditableSettings(True, 3, "English", "")
    assert statuses and statuses[-1].status.auto_memory_frequency == 3
    await session.close()


@pytest.mark.req("U1")
async def test_u1_list_sessions_for_a_resume_picker(
    make_service, model_server: ModelServer
) -> None:
    model_server.enqueue(text("one"))
    session = AgentSession(make_service())
    await session.run_turn("first prompt")
    infos = await session.picker.sessions()
    await session.close()
    assert [i.id for i in infos] == [session.service.session_id]  # type: ignore[union-attr]


@pytest.mark.req("M5")
async def test_m5_a_memory_folder_that_is_a_file_shows_auto_memory_off_and_warns_once(
    project: Path, isolated_home: Path, model_server: ModelServer
) -> None:
    paths = WavePaths.for_workdir(project, home=isolated_home)
    paths.project_dir.mkdir(parents=True)
    paths.memory_dir.write_text("not a folder")
    model_server.enqueue(text("one"), text("two"))
    session = create_session(AgentOptions(workdir=project, environ=model_server.env()))
    notices: list[str] = []
    session.subscribe(lambda e: notices.append(e.text) if isinstance(e, ev.Notice) else None)
    session.start()
    try:
        assert session.status().auto_memory is False
        await session.run_turn("hi")
        await session.run_turn("again")
    finally:
        await session.close()

    assert [n for n in notices if "memory" in n] == [
        f"~/.wave/projects/{paths.project_id}/memory is a file, not the auto-memory folder; "
        "auto memory is off for this run"
    ]
    assert session.status().auto_memory is False
    assert paths.memory_dir.read_text() == "not a folder"
