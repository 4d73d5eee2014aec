"""A `wave daemon` client's side of the socket: connect (starting the daemon when asked), send
one request, read its answer. Plain blocking sockets: a client command runs no event loop."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from typing import Any

from wave_tui.config.paths import WavePaths
from wave_tui.session.daemon.folder import UnsafeDaemonFolder, ensure_private_folder
from wave_tui.session.daemon.protocol import MAX_LINE_BYTES, decode, encode
from wave_tui.session.daemon.registry import has_records

START_TIMEOUT_S = 60.0  # a loaded machine imports wave slowly; a daemon that fails says so at once
_START_POLL_S = 0.05


class DaemonUnavailable(RuntimeError):
    """No daemon runs (and none was to be started), or it could not start: one line."""


class DaemonClient:
    """One connection to the daemon; requests are answered in order."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._reader = sock.makefile("rb")

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """The daemon's answer; DaemonUnavailable when it went away before answering."""
        try:
            self._sock.sendall(encode({"op": op, **fields}))
            line = self._reader.readline(MAX_LINE_BYTES)
        except OSError as exc:
            raise DaemonUnavailable(f"the daemon went away: {exc}") from exc
        if not line:
            raise DaemonUnavailable("the daemon went away before answering")
        return decode(line)

    def close(self) -> None:
        self._reader.close()
        self._sock.close()

    def __enter__(self) -> DaemonClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _connect(paths: WavePaths) -> DaemonClient | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(paths.daemon_socket))
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        return None
    except OSError as exc:
        sock.close()
        raise DaemonUnavailable(f"cannot reach the daemon at {paths.daemon_socket}: {exc}") from exc
    return DaemonClient(sock)


# req: DM1
# req: HR6
def connect(paths: WavePaths, *, start: bool) -> DaemonClient:
    """A connection to the user's daemon. `start`: start one when none runs; a daemon is also
    started (restarted) when sessions are on disk that no daemon hosts now (DM3)."""
    if start or paths.daemon_dir.exists() or paths.daemon_dir.is_symlink():
        try:
            ensure_private_folder(paths.daemon_dir)
        except (UnsafeDaemonFolder, OSError) as exc:
            raise DaemonUnavailable(str(exc)) from exc
    client = _connect(paths)
    if client is not None:
        return client
    if not start and not has_records(paths.daemon_registry):
        raise DaemonUnavailable("no daemon is running (wave daemon create starts one)")
    process = _start_daemon(paths)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        client = _connect(paths)
        if client is not None:
            return client
        if process.poll() not in (None, 0):
            raise DaemonUnavailable(f"the daemon did not start (see {paths.daemon_log})")
        time.sleep(_START_POLL_S)
    raise DaemonUnavailable(f"the daemon did not start in time (see {paths.daemon_log})")


def _start_daemon(paths: WavePaths) -> subprocess.Popen[bytes]:
    """The daemon as a process of its own session: it outlives this command and its terminal."""
    with open(paths.daemon_log, "ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "wave_tui", "daemon", "serve"],
            cwd=paths.home,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
            env=dict(os.environ),
        )
