"""`wave daemon` commands and exit codes (DM1): a daemon started on demand behind a 0600
socket, `send` that returns at once, `status`, `wait` ending 0 idle / 3 waiting for approval /
1 error or destroyed, `respond`, `abort`, `list`, `destroy`, and the exit when idle."""

from __future__ import annotations

import json
import stat
import threading

import pytest

from tests.daemon.conftest import Daemon, daemon_paths, daemon_pid, wait_until
from tests.model_server import error, text, tool_call

pytestmark = pytest.mark.req("DM1")


def test_create_starts_the_daemon_behind_a_private_socket_and_send_wait_status(
    daemon: Daemon,
) -> None:
    assert daemon_pid() is None
    daemon.server.enqueue(text("the report: all done"))
    session = daemon.create()
    paths = daemon_paths()
    assert stat.S_IMODE(paths.daemon_socket.stat().st_mode) == 0o600
    assert stat.S_IMODE(paths.daemon_dir.stat().st_mode) == 0o700
    assert daemon_pid() is not None

    assert daemon.ok("send", session, "write the report") == ""
    waited = daemon.run("wait", session)
    assert waited.returncode == 0, waited.stderr
    assert waited.stdout.splitlines() == [
        f"{session}  idle  mode=default",
        "[assistant] the report: all done",
    ]
    assert daemon.ok("status", session, "--lines", "0").splitlines() == [
        f"{session}  idle  mode=default"
    ]
    assert daemon.ok("status", session, "--lines", "5").splitlines()[1:] == [
        "[user] write the report",
        "[assistant] the report: all done",
    ]
    listed = json.loads(daemon.ok("list", "--json"))
    assert [(s["id"], s["state"], s["workdir"]) for s in listed] == [
        (session, "idle", str(daemon.project.resolve()))
    ]
    assert daemon.ok("list").startswith(f"{session}  idle  mode=default")


def test_commands_other_than_create_do_not_start_a_daemon(daemon: Daemon) -> None:
    done = daemon.run("status", "d-nothing")
    assert done.returncode == 1
    assert "no daemon is running" in done.stderr
    assert daemon_pid() is None


def test_wait_exits_3_while_a_permission_request_waits_for_respond(daemon: Daemon) -> None:
    target = daemon.project / "notes.txt"
    daemon.server.enqueue(
        tool_call("Write", {"file_path": str(target), "content": "hello\n"}),
        text("wrote it"),
    )
    session = daemon.create()
    daemon.ok("send", session, "write notes.txt")
    waited = daemon.run("wait", session, "--from-busy")
    assert waited.returncode == 3, (waited.stdout, waited.stderr)
    assert f"{session}  waiting  mode=default" in waited.stdout
    assert "approval: Write" in waited.stdout
    assert not target.exists()
    # It keeps waiting, however often a client looks.
    assert daemon.run("wait", session).returncode == 3

    daemon.ok("respond", session, "--allow")
    waited = daemon.run("wait", session)
    assert waited.returncode == 0, waited.stdout
    assert target.read_text() == "hello\n"
    assert waited.stdout.splitlines()[-1] == "[assistant] wrote it"


def test_a_denied_request_is_refused_and_the_mode_stays(daemon: Daemon) -> None:
    target = daemon.project / "notes.txt"
    daemon.server.enqueue(
        tool_call("Write", {"file_path": str(target), "content": "x"}), text("it was refused")
    )
    session = daemon.create()
    daemon.ok("send", session, "write notes.txt")
    assert daemon.run("wait", session).returncode == 3
    daemon.ok("respond", session, "--deny")
    assert daemon.run("wait", session).returncode == 0
    assert not target.exists()
    assert daemon.status(session)["mode"] == "default"
    nothing = daemon.run("respond", session, "--allow")
    assert (nothing.returncode, nothing.stderr.strip()) == (
        1,
        "wave daemon: nothing waits for approval",
    )


def test_wait_exits_1_when_the_turn_fails(daemon: Daemon) -> None:
    daemon.server.enqueue(error(400, "the model refused the request"))
    session = daemon.create()
    daemon.ok("send", session, "go")
    waited = daemon.run("wait", session)
    assert waited.returncode == 1
    assert f"{session}  error" in waited.stdout
    assert "the model refused the request" in waited.stdout


def test_wait_exits_1_when_another_client_destroys_the_session(daemon: Daemon) -> None:
    release = threading.Event()
    daemon.server.enqueue(text("never finished", hold=release))
    session = daemon.create()
    daemon.ok("send", session, "go")
    waiter = daemon.spawn("wait", session)
    daemon.wait_for(session, "the wait to be in", lambda s: s["watchers"] == 1)

    daemon.ok("destroy", session)
    _, err = waiter.communicate(timeout=60)
    release.set()
    assert waiter.returncode == 1
    assert "destroyed while waiting" in err
    assert json.loads(daemon.ok("list", "--json")) == []


def test_wait_from_busy_waits_for_a_first_message_and_plain_wait_does_not(
    daemon: Daemon,
) -> None:
    daemon.server.enqueue(text("first answer"))
    session = daemon.create()
    waiter = daemon.spawn("wait", session, "--from-busy")
    daemon.wait_for(session, "the wait to be in", lambda s: s["watchers"] == 1)
    assert daemon.run("wait", session).returncode == 0  # nothing sent: idle now

    daemon.ok("send", session, "go")
    out, _ = waiter.communicate(timeout=60)
    assert waiter.returncode == 0
    assert out.splitlines()[-1] == "[assistant] first answer"


def test_abort_stops_the_turn_and_drops_the_queue(daemon: Daemon) -> None:
    release = threading.Event()
    daemon.server.enqueue(text("the old scope goes on and on", hold=release))
    session = daemon.create()
    daemon.ok("send", session, "old scope")
    daemon.ok("send", session, "more of the old scope")
    daemon.wait_for(session, "the turn to stream", lambda s: s["queued"] == 1)
    daemon.ok("abort", session)
    release.set()
    assert daemon.run("wait", session).returncode == 0
    daemon.server.enqueue(text("new scope done"))
    daemon.ok("send", session, "new scope")
    waited = daemon.run("wait", session, "--from-busy", "--lines", "9")
    assert waited.returncode == 0
    shown = waited.stdout
    assert "more of the old scope" not in shown
    assert shown.splitlines()[-1] == "[assistant] new scope done"


def test_two_clients_at_once_both_get_their_turn(daemon: Daemon) -> None:
    daemon.server.enqueue(text("answer one"), text("answer two"))
    session = daemon.create()
    first = daemon.spawn("send", session, "one", "--wait")
    second = daemon.spawn("send", session, "two", "--wait")
    assert first.wait(timeout=60) == 0
    assert second.wait(timeout=60) == 0
    for process in (first, second):
        process.communicate()
    lines = daemon.ok("status", session, "--lines", "4").splitlines()[1:]
    assert sorted(lines) == sorted(
        ["[user] one", "[user] two", "[assistant] answer one", "[assistant] answer two"]
    )
    assert lines[1] == "[assistant] answer one" and lines[3] == "[assistant] answer two"


def test_the_daemon_exits_once_it_has_no_session_and_is_idle(daemon: Daemon) -> None:
    session = daemon.run("create", env={"WAVE_DAEMON_IDLE_S": "0"}).stdout.strip()
    pid = daemon_pid()
    assert pid is not None
    daemon.ok("destroy", session)
    wait_until(lambda: daemon_pid() is None, "the idle daemon to exit")
    assert not daemon_paths().daemon_socket.exists()


def test_unknown_session_and_bad_mode_are_one_line(daemon: Daemon) -> None:
    daemon.create()
    unknown = daemon.run("status", "d-missing")
    assert unknown.returncode == 1
    assert unknown.stderr.strip() == "wave daemon: no daemon session 'd-missing' (wave daemon list)"
    assert daemon.run("create", "--mode", "yolo").returncode == 2


def test_model_text_reaches_the_terminal_neutralised(daemon: Daemon) -> None:
    daemon.server.enqueue(text("done\x1b]0;owned\x07 here"))
    session = daemon.create()
    daemon.ok("send", session, "go")
    waited = daemon.run("wait", session)
    assert "\x1b" not in waited.stdout and "\x07" not in waited.stdout
    assert waited.stdout.splitlines()[-1].startswith("[assistant] done␛]0;owned")
