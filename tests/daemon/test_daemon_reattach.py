"""Sessions survive their clients (DM2): a client that disconnects mid-turn — a killed `wait`,
an interrupted `send --wait` — loses nothing; the next client sees what was generated meanwhile
(`status --lines`, `wait --from-busy`)."""

from __future__ import annotations

import signal
import threading

import pytest

from tests.daemon.conftest import Daemon
from tests.model_server import text

pytestmark = pytest.mark.req("DM2")

REPLY = "first words then the whole long report"


def test_a_client_killed_mid_turn_loses_nothing_and_reattaching_sees_it_all(
    daemon: Daemon,
) -> None:
    release = threading.Event()
    daemon.server.enqueue(text(REPLY, hold=release, hold_at=3))
    session = daemon.create()
    daemon.ok("send", session, "write the long report")
    waiter = daemon.spawn("wait", session)
    daemon.wait_for(session, "the wait to be in", lambda s: s["watchers"] == 1)
    waiter.send_signal(signal.SIGKILL)
    waiter.communicate()
    daemon.wait_for(session, "the wait to be gone", lambda s: s["watchers"] == 0)

    # Mid-turn, from a new client: the part generated so far, marked as still generating.
    mid = daemon.ok("status", session, "--lines", "2").splitlines()
    assert mid[0] == f"{session}  busy  mode=default"
    assert mid[1] == "[user] write the long report"
    assert mid[2].startswith("[assistant (generating)] first")
    assert REPLY not in mid[2]

    release.set()
    waited = daemon.run("wait", session, "--from-busy", "--lines", "2")
    assert waited.returncode == 0
    assert waited.stdout.splitlines() == [
        f"{session}  idle  mode=default",
        "[user] write the long report",
        f"[assistant] {REPLY}",
    ]


def test_an_interrupted_send_was_still_delivered(daemon: Daemon) -> None:
    release = threading.Event()
    daemon.server.enqueue(text("done with the task", hold=release))
    session = daemon.create()
    sender = daemon.spawn("send", session, "the task", "--wait")
    daemon.wait_for(session, "the send's wait to be in", lambda s: s["watchers"] == 1)
    sender.send_signal(signal.SIGINT)
    sender.communicate()
    assert sender.returncode != 0

    assert daemon.ok("status", session, "--lines", "1").splitlines()[1:] == ["[user] the task"]
    release.set()
    waited = daemon.run("wait", session, "--from-busy")
    assert waited.returncode == 0
    assert waited.stdout.splitlines()[-1] == "[assistant] done with the task"
    assert len(daemon.server.requests) == 1  # delivered once, answered once
