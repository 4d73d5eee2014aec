"""The extraction fork in the app: it never blocks typing, and quitting waits for it (U2, C4)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import fixed_clock, server_env
from tests.tui.helpers import wait_until
from wave_tui.agent.service import AgentOptions
from wave_tui.features.memory.extraction import AUDIT_DIR
from wave_tui.session.factory import create_service
from wave_tui.tui.app import make_app
from wave_tui.tui.widgets.history_input import HistoryInput

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("C4", "U2")


async def test_slow_extraction_never_blocks_typing_toasts_its_writes_and_quit_waits(
    model_server: ModelServer, project: Path
) -> None:
    service = create_service(AgentOptions(workdir=project, environ=server_env(model_server)))
    target = service.paths.memory_dir / "from_fork.md"
    first_fork = threading.Event()
    model_server.enqueue(text("answer"), when=is_main)
    model_server.enqueue(
        tool_call(
            "Write",
            {"file_path": str(target), "content": "---\nname: f\ntype: user\n---\nx\n"},
            hold=first_fork,
        ),
        text("saved"),
        when=is_fork,
    )
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"hello", "enter")
        await wait_until(pilot, lambda: service.background_busy)
        assert service.background_busy  # the fork is running in the background
        await pilot.press(*"still typing")
        assert app.chat_screen.query_one("#prompt", HistoryInput).value == "still typing"
        first_fork.set()
        # let the fork finish: its write shows as a toast
        await wait_until(pilot, lambda: not service.background_busy, tries=300)
        await pilot.pause(0.05)
        toasts = [str(n.message) for n in app._notifications]
        assert "memory updated: from_fork.md" in toasts
        model_server.enqueue(text("again"), when=is_main)
        second_fork = threading.Event()
        model_server.enqueue(text("thinking " * 40, hold=second_fork), when=is_fork)
        await pilot.press("ctrl+a", "ctrl+k", *"more", "enter")
        await wait_until(pilot, lambda: service.background_busy)
        assert service.background_busy
        await pilot.press("ctrl+q")
        await pilot.pause(0.05)
        assert any("Finishing the memory extraction" in str(n.message) for n in app._notifications)
        second_fork.set()
        await wait_until(pilot, lambda: not app.is_running, tries=300)
    assert target.exists()
    assert not service.background_busy  # quit waited for the second fork to finish


@pytest.mark.req("UX9")
async def test_ux9_a_second_ctrl_q_quits_without_waiting_and_the_run_is_recorded_cancelled(
    model_server: ModelServer, project: Path
) -> None:
    service = create_service(AgentOptions(workdir=project, environ=server_env(model_server)))
    model_server.enqueue(text("answer"), when=is_main)
    model_server.enqueue(text("thinking " * 400, hold=threading.Event()), when=is_fork)  # endless
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"hello", "enter")
        await wait_until(pilot, lambda: service.background_busy)
        assert service.background_busy
        await pilot.press("ctrl+q")
        await pilot.pause(0.05)
        toasts = [str(n.message) for n in app._notifications]
        assert any("Ctrl+Q again: quit without waiting" in t for t in toasts)
        await pilot.press("ctrl+q")
        # far less than the fork's remaining stream
        await wait_until(pilot, lambda: not app.is_running, tries=100)
    assert not app.is_running
    records = list((service.paths.project_dir / AUDIT_DIR).glob("*.json"))
    assert len(records) == 1
    assert json.loads(records[0].read_text(encoding="utf-8"))["cancelled"] is True
