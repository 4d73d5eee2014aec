"""Change notifications through the service with real files and the model server (N1–N7)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wire_view import texts
from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.session.factory import create_service

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("N7")


@pytest.fixture
def service(model_server: ModelServer, project: Path) -> AgentService:
    env = {
        "WAVE_BASE_URL": model_server.base_url,
        "WAVE_MODEL": "m",
        "WAVE_DISABLE_AUTO_MEMORY": "1",  # no fork: every request here is the main agent's
    }
    svc = create_service(AgentOptions(workdir=project, environ=env, permission_mode="acceptEdits"))
    svc.start()
    return svc


def bump(path: Path, content: str | None = None) -> None:
    if content is not None:
        path.write_text(content)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def notices_in(server: ModelServer, index: int = -1) -> list[str]:
    return [
        t
        for t in texts(server.requests[index].body["messages"], "user")
        if "changed on disk" in t or "was deleted" in t
    ]


@pytest.mark.req("N1")
async def test_external_edit_is_notified_with_path_and_added_lines(
    service: AgentService, model_server: ModelServer, project: Path
) -> None:
    """N1 + the UI summary event."""
    f = project / "config.py"
    f.write_text("a = 1\nb = 2\n")
    model_server.enqueue(tool_call("Read", {"file_path": "config.py"}), text("read"))
    await service.run_turn("read config")
    bump(f, "a = 1\nb = 2\nc = 3\n")
    seen: list[str] = []
    service.subscribe(
        lambda e: seen.append(e.text) if isinstance(e, ev.Notice) and e.kind == "changed" else None
    )
    await service.run_turn("what now?")
    (notice,) = notices_in(model_server)
    assert "config.py" in notice and "c = 3" in notice and "3" in notice
    assert "<system-reminder>" in notice
    assert seen and "config.py" in seen[0]
    # persisted as isMeta, hidden from the chat
    lines = [json.loads(x) for x in service.transcript.path.read_text().splitlines()]
    assert any(m.get("isMeta") and "changed on disk" in m["content"] for m in lines)
    await service.destroy()


@pytest.mark.req("N2", "N3", "N4")
async def test_touch_partial_read_and_own_edit_are_not_notified(
    service: AgentService, model_server: ModelServer, project: Path
) -> None:
    """N2, N3, N4."""
    touched, partial, edited = (project / n for n in ("t.txt", "p.txt", "e.txt"))
    for f in (touched, partial, edited):
        f.write_text("one\ntwo\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "t.txt"}),
        tool_call("Read", {"file_path": "p.txt", "offset": 1, "limit": 1}),
        tool_call("Read", {"file_path": "e.txt"}),
        tool_call("Edit", {"file_path": "e.txt", "old_string": "two", "new_string": "2"}),
        text("ok"),
    )
    await service.run_turn("work")
    bump(touched)  # same content, newer mtime
    bump(partial, "one\ntwo\nthree\n")
    await service.run_turn("again")
    assert notices_in(model_server) == []
    await service.destroy()


@pytest.mark.req("N5")
async def test_the_same_change_is_notified_once(
    service: AgentService, model_server: ModelServer, project: Path
) -> None:
    """N5."""
    f = project / "x.txt"
    f.write_text("v1\n")
    model_server.enqueue(tool_call("Read", {"file_path": "x.txt"}), text("ok"))
    await service.run_turn("read")
    bump(f, "v2\n")
    await service.run_turn("1")
    await service.run_turn("2")
    assert len(notices_in(model_server, -2)) == 1
    all_notices = [m for m in service.messages if m.is_meta and "changed on disk" in m.content]
    assert len(all_notices) == 1
    await service.destroy()


@pytest.mark.req("N6")
async def test_a_formatter_touching_fifty_files_stays_within_the_caps(
    service: AgentService, model_server: ModelServer, project: Path
) -> None:
    """N6: at most 10 files in detail, ≤ 24,000 characters, one overflow line naming the rest."""
    files = [project / f"m{i:02d}.py" for i in range(50)]
    for f in files:
        f.write_text("x = 1\n" * 200)
    model_server.enqueue(*[tool_call("Read", {"file_path": f.name}) for f in files], text("ok"))
    await service.run_turn("read all")
    for f in files:
        bump(f, "x = 2\n" * 200)
    await service.run_turn("formatted")
    (notice,) = notices_in(model_server)
    detailed = notice.count("changed on disk since you last read it")
    assert detailed <= 10
    assert len(notice) <= 24_000 + 4_000  # snippets capped; headers/overflow line on top
    assert "more files changed" in notice and "m49.py" in notice
    await service.destroy()


async def test_deleted_file_is_reported_once(
    service: AgentService, model_server: ModelServer, project: Path
) -> None:
    f = project / "gone.txt"
    f.write_text("bye\n")
    model_server.enqueue(tool_call("Read", {"file_path": "gone.txt"}), text("ok"))
    await service.run_turn("read")
    f.unlink()
    await service.run_turn("1")
    await service.run_turn("2")
    assert any("was deleted" in n for n in notices_in(model_server, -2))
    assert len(notices_in(model_server, -1)) == 1  # still in history, never repeated
    await service.destroy()


async def test_rereading_after_a_notice_returns_the_file_not_an_unchanged_stub(
    service: AgentService, model_server: ModelServer, project: Path
) -> None:
    """After a (possibly truncated) diff the model may re-read: it must get the content."""
    f = project / "big.txt"
    f.write_text("a\n")
    model_server.enqueue(tool_call("Read", {"file_path": "big.txt"}), text("ok"))
    await service.run_turn("read")
    bump(f, "b\n")
    model_server.enqueue(tool_call("Read", {"file_path": "big.txt"}), text("ok"))
    await service.run_turn("re-read")
    result = model_server.requests[-1].body["messages"][-1]["content"]
    assert "unchanged" not in result.lower() and "b" in result
    await service.destroy()
