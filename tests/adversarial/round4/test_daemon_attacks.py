"""Attacks on `wave daemon` from the same machine: its folder made beforehand by someone else (a
symlink to their folder, a folder open to everyone), session ids that look like paths, a client
writing garbage or a huge line on the socket, a reply carrying terminal escapes."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import pytest

from tests.daemon.conftest import Daemon, daemon_paths, daemon_pid
from tests.model_server import text

pytestmark = pytest.mark.req("HR6")


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def test_a_daemon_folder_that_is_a_symlink_is_refused_never_followed(
    daemon: Daemon, tmp_path: Path
) -> None:
    theirs = tmp_path / "attacker"
    theirs.mkdir()
    theirs.chmod(0o777)
    folder = daemon_paths().daemon_dir
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(theirs, target_is_directory=True)

    for args in (("create",), ("list",), ("status", "d-x")):
        done = daemon.run(*args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert done.stderr.splitlines() == [
            f"wave daemon: {folder} is a symlink: refusing to use it (remove it)"
        ]
    assert list(theirs.iterdir()) == []
    assert stat.S_IMODE(theirs.stat().st_mode) == 0o777
    assert daemon_pid() is None


def test_a_daemon_folder_open_to_everyone_is_made_private_before_use(daemon: Daemon) -> None:
    folder = daemon_paths().daemon_dir
    folder.mkdir(parents=True)
    os.chmod(folder, 0o777)
    (folder / "daemon.log").write_text("")  # a log planted before the daemon ever ran

    daemon.server.enqueue(text("fine"))
    session = daemon.create()

    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(daemon_paths().daemon_socket.stat().st_mode) == 0o600
    assert daemon.ok("send", session, "hi", "--wait").splitlines()[-1] == "[assistant] fine"


@pytest.mark.parametrize("bad", ["../../etc/passwd", "a/b", "/tmp/x", "..", ""])
def test_session_ids_that_look_like_paths_name_no_session_in_any_subcommand(
    daemon: Daemon, bad: str
) -> None:
    session = daemon.create()
    registry = daemon_paths().daemon_registry
    before = registry.read_bytes()
    for args in (
        ("status", bad),
        ("wait", bad),
        ("send", bad, "hello"),
        ("respond", bad, "--allow"),
        ("abort", bad),
        ("destroy", bad),
    ):
        done = daemon.run(*args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert len(done.stderr.splitlines()) == 1 and "no daemon session" in done.stderr, args
    assert registry.read_bytes() == before
    assert daemon.status(session)["state"] == "idle"


def _raw(line: bytes) -> bytes:
    """What the daemon answers one raw line sent on its socket ("" when it only hung up)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(daemon_paths().daemon_socket))
        try:
            sock.sendall(line)
            sock.shutdown(socket.SHUT_WR)
        except BrokenPipeError:
            pass  # the daemon stopped reading (a line past its limit): its answer is there
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer


def test_garbage_and_huge_lines_on_the_socket_get_one_line_and_the_daemon_goes_on(
    daemon: Daemon,
) -> None:
    session = daemon.create()
    daemon.server.enqueue(text("still here"))

    for line in (b"not json\n", b"[1, 2]\n", b"\xff\xfe\n", b"[" * 200_000 + b"\n"):
        answer = json.loads(_raw(line))
        assert answer["ok"] is False and answer["error"].startswith("bad request"), line[:20]
    # Past the line limit: one line says so, nothing is kept of it.
    huge = json.loads(_raw(b'{"op": "list", "pad": "' + b"x" * (17 * 1024 * 1024) + b'"}\n'))
    assert huge["ok"] is False and huge["error"].startswith("bad request"), huge
    assert json.loads(_raw(b'{"op": "list"}\n'))["ok"] is True

    out = daemon.ok("send", session, "go on", "--wait")
    assert out.splitlines()[-1] == "[assistant] still here"


def test_a_reply_with_terminal_escapes_reaches_status_neutralised(daemon: Daemon) -> None:
    daemon.server.enqueue(text("done\x1b]0;owned\x07\x1b[2J\rclean"))
    session = daemon.create()
    daemon.ok("send", session, "go", "--wait")

    shown = daemon.ok("status", session, "--lines", "5")

    assert "\x1b" not in shown and "\x07" not in shown and "\r" not in shown
    assert "[assistant] done␛]0;owned␇␛[2J␍clean" in shown
