"""`wave --attach ID` (DM2): the app on a session a real `wave daemon` runs. The transcript so far
shows, the daemon's turn (started before the attach) streams on into the app, a message typed
in the app goes to the daemon, its permission question is the app's dialog, Esc aborts the
daemon's turn, and quitting detaches: the session goes on in the daemon."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.daemon.conftest import Daemon, daemon_paths
from tests.model_server import ModelServer, text, tool_call
from wave_tui.config.paths import WavePaths
from wave_tui.session.daemon.remote import attach_session
from wave_tui.tui.app import Opened, SessionOpening, WaveApp, make_app
from wave_tui.tui.screens.dialogs import PermissionDialog
from wave_tui.tui.widgets.chat_items import AssistantMessage, UserMessage

pytestmark = pytest.mark.req("DM2")

REPLY = "alpha beta gamma delta epsilon zeta eta theta"
WAIT_TRIES = 3000  # 20 ms steps: the daemon is another process on a loaded machine


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.fixture
def daemon(model_server: ModelServer, project: Path) -> Iterator[Daemon]:
    driver = Daemon(model_server, project)
    try:
        yield driver
    finally:
        driver.close()


def attached_app(daemon: Daemon, session: str) -> WaveApp:
    """The app as `wave --attach ID` makes it."""
    project = WavePaths.for_workdir(daemon.project)

    def open_session() -> Opened:
        return Opened(attach_session(session, project, daemon_paths()))

    app = make_app(None, None, opening=SessionOpening(project, open_session, lambda: None))
    app.animation_level = "none"
    return app


async def until(pilot: Pilot[None], condition: Callable[[], bool], what: str) -> None:
    for _ in range(WAIT_TRIES):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def replies(app: WaveApp) -> list[str]:
    return [block._content for block in app.chat_screen.query(AssistantMessage)]


def busy(app: WaveApp) -> bool:
    return app.session_ready and app.session.status().busy


def sent(app: WaveApp) -> list[str]:
    return [str(block.render()) for block in app.chat_screen.query(UserMessage)]


def held_status(daemon: Daemon, session: str) -> None:
    from tests.daemon.conftest import wait_until

    wait_until(
        lambda: "(generating)" in daemon.ok("status", session, "--lines", "1"),
        "part of the reply",
    )


async def test_attach_mid_turn_streams_on_sends_and_detaches(daemon: Daemon) -> None:
    daemon.server.enqueue(text("the first answer"))
    session = daemon.create()
    daemon.ok("send", session, "first question", "--wait")
    release = threading.Event()
    daemon.server.enqueue(text(REPLY, hold=release, hold_at=3))
    daemon.ok("send", session, "the greek letters")
    held_status(daemon, session)

    app = attached_app(daemon, session)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(
            pilot,
            lambda: len(replies(app)) == 2 and bool(replies(app)[1]),
            "the transcript and the part generated so far",
        )
        assert sent(app) == ["first question", "the greek letters"]
        assert replies(app)[0] == "the first answer"
        # The part generated before the attach, as the daemon has it, in the reply's block.
        generating = daemon.ok("status", session, "--lines", "1").splitlines()[1]
        assert generating == f"[assistant (generating)] {replies(app)[1]}"
        assert replies(app)[1] and replies(app)[1] != REPLY
        assert app.session.status().busy
        # Two clients at once: the CLI sees the app attached and the turn still running.
        assert daemon.status(session)["attached"] == 1
        assert daemon.status(session)["state"] == "busy"

        release.set()
        await until(pilot, lambda: not app.session.status().busy, "the turn to end")
        await until(pilot, lambda: replies(app)[-1] == REPLY, "the whole reply")
        assert len(replies(app)) == 2  # streamed on into the same block: nothing twice

        daemon.server.enqueue(text("typed and answered"))
        await pilot.press(*"from the app", "enter")
        await until(pilot, lambda: replies(app)[-1] == "typed and answered", "the answer")
        assert sent(app)[-1] == "from the app"
        shown = daemon.ok("status", session, "--lines", "2").splitlines()[1:]
        assert shown == ["[user] from the app", "[assistant] typed and answered"]
        await pilot.press("ctrl+q")
    # Quitting detached: the session is still the daemon's, idle, with nobody attached.
    daemon.wait_for(session, "the app to detach", lambda s: s["attached"] == 0)
    assert daemon.status(session)["state"] == "idle"


async def test_escape_aborts_the_daemons_turn_and_quitting_leaves_the_session(
    daemon: Daemon,
) -> None:
    release = threading.Event()
    daemon.server.enqueue(text(REPLY, hold=release, hold_at=3))
    session = daemon.create()
    daemon.ok("send", session, "the greek letters")
    held_status(daemon, session)
    app = attached_app(daemon, session)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: busy(app), "the busy state")
            await pilot.press("escape")
            await until(pilot, lambda: not app.session.status().busy, "the abort")
            assert daemon.status(session)["state"] == "idle"
            await pilot.press("ctrl+q")
    finally:
        release.set()  # the server's held reply ends either way
    daemon.wait_for(session, "the app to detach", lambda s: s["attached"] == 0)
    assert daemon.status(session)["id"] == session  # not destroyed


async def test_a_daemon_permission_question_is_the_apps_dialog(
    daemon: Daemon, project: Path
) -> None:
    daemon.server.enqueue(tool_call("Write", {"file_path": "notes.txt", "content": "hi\n"}))
    daemon.server.enqueue(text("written"))
    session = daemon.create()
    daemon.ok("send", session, "write the notes")
    daemon.wait_for(session, "the question", lambda s: s["state"] == "waiting")
    app = attached_app(daemon, session)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PermissionDialog), "the dialog")
        await pilot.press("y")
        await until(pilot, lambda: bool(replies(app)) and replies(app)[-1] == "written", "done")
        assert (project / "notes.txt").read_text() == "hi\n"
        await pilot.press("ctrl+q")
    assert daemon.status(session)["state"] == "idle"


async def test_always_allow_in_the_attached_dialog_is_the_daemon_sessions_grant(
    daemon: Daemon, project: Path
) -> None:
    """The dialog's "always" reaches the daemon session as the grant the user saw: the next
    write of the same kind runs there without a question."""
    write = {"file_path": "notes.txt", "content": "hi\n"}
    daemon.server.enqueue(tool_call("Write", write), text("written"))
    session = daemon.create()
    daemon.ok("send", session, "write the notes")
    daemon.wait_for(session, "the question", lambda s: s["state"] == "waiting")
    app = attached_app(daemon, session)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PermissionDialog), "the dialog")
        await pilot.press("a")
        await until(pilot, lambda: bool(replies(app)) and replies(app)[-1] == "written", "done")
        daemon.server.enqueue(
            tool_call("Write", {"file_path": "notes.txt", "content": "again\n"}), text("again")
        )
        await pilot.press(*"once more", "enter")
        await until(pilot, lambda: replies(app)[-1] == "again", "the second write's answer")
        assert not isinstance(app.screen, PermissionDialog)
        await pilot.press("ctrl+q")
    assert (project / "notes.txt").read_text() == "again\n"
