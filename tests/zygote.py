"""Run a `wave` command through the test worker's zygote (`tests/zygote_server.py`).

A spawned `wave` spends ~0.4 s importing itself, most of an end-to-end test's time; the zygote
has imported it once and forks per command. The command still is its own process, with its own
pipes, folder, environment and exit status: what the caller gets is what `subprocess.run` gives
(`returncode` negative for a signal; `TimeoutExpired` after killing it, with what it printed).
Commands whose interpreter would start differently (a `PYTHON*`, locale or `TMPDIR` variable
not the zygote's) run as real `python -m wave_tui` processes; so does every command when
`WAVE_TESTS_NO_ZYGOTE=1` is set (read at import: the tests' HOME fixture clears `WAVE_*`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.zygote_server import HEADER

ROOT = Path(__file__).resolve().parent.parent
ENABLED = os.environ.get("WAVE_TESTS_NO_ZYGOTE", "") in ("", "0")
_INTERPRETER_KEYS = ("LANG", "LANGUAGE", "TMPDIR")
_INTERPRETER_PREFIXES = ("PYTHON", "LC_")


def _interpreter_env(env: Mapping[str, str]) -> dict[str, str]:
    """The variables read while an interpreter starts (encoding, paths, hashing, temp folder)."""
    return {
        key: value
        for key, value in env.items()
        if key in _INTERPRETER_KEYS or key.startswith(_INTERPRETER_PREFIXES)
    }


class Zygote:
    """One running zygote server and its socket."""

    def __init__(self) -> None:
        self._folder = tempfile.mkdtemp(prefix="wave-zygote-")
        self.socket_path = os.path.join(self._folder, "socket")
        env = {k: v for k, v in os.environ.items() if not k.startswith("WAVE_")}
        env["PYTHONPATH"] = str(ROOT)
        env["HOME"] = self._folder  # nothing it imports may depend on a test's HOME
        self.env = _interpreter_env(env)
        self.users = 0  # commands under way
        self.retired = False  # replaced: it ends with its last command
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.zygote_server", self.socket_path],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self._process.stdout is not None
        ready = self._process.stdout.readline()  # the imports are done
        self._process.stdout.close()
        if ready != b"READY\n":
            raise RuntimeError(f"the zygote did not start (exit {self._process.wait()})")

    def fits(self, env: Mapping[str, str]) -> bool:
        """A command with this environment starts like a fork of the zygote would."""
        return _interpreter_env(env) == self.env

    @property
    def pid(self) -> int:
        return self._process.pid

    def alive(self) -> bool:
        return self._process.poll() is None

    def close(self) -> None:
        assert self._process.stdin is not None
        if self._process.stdin.closed:
            return
        self._process.stdin.close()  # its end of input: it exits
        self._process.wait()
        with contextlib.suppress(OSError):
            os.unlink(self.socket_path)
            os.rmdir(self._folder)


_lock = threading.Lock()
_zygote: Zygote | None = None
_sources: list[tuple[str, int, int]] = []


def _source_state() -> list[tuple[str, int, int]]:
    """Every wave source file with its change time and size."""
    found = []
    folders = [ROOT / "wave_tui"]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    folders.append(Path(entry.path))
                elif entry.name.endswith(".py"):
                    info = entry.stat()
                    found.append((entry.path, info.st_mtime_ns, info.st_size))
    return sorted(found)


def _take() -> Zygote:
    """The worker's zygote, for one command; a new one once a wave source changed (what it
    imported would mix with what a child imports from the disk). A replaced one ends once its
    last command has."""
    global _zygote, _sources
    with _lock:
        state = _source_state()
        if _zygote is None or not _zygote.alive() or state != _sources:
            old, _zygote = _zygote, Zygote()
            _sources = state  # a change while it imported shows at the next command
            atexit.register(_zygote.close)
            if old is not None:
                old.retired = True
                _release_unlocked(old, 0)
        _zygote.users += 1
        return _zygote


def _release(zygote: Zygote) -> None:
    with _lock:
        _release_unlocked(zygote, 1)


def _release_unlocked(zygote: Zygote, done: int) -> None:
    zygote.users -= done
    if zygote.retired and zygote.users == 0:
        zygote.close()


def current_pid() -> int | None:
    """The pid of this worker's zygote, None before its first command."""
    return None if _zygote is None else _zygote.pid


def run(
    cmd: Sequence[str],
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    input: bytes | None,
    timeout: float,
) -> subprocess.CompletedProcess[bytes]:
    """`subprocess.run(cmd + args, capture_output=True)` for `cmd` = `python -m wave_tui`, with
    `input` on stdin (None: /dev/null)."""
    zygote = _take() if ENABLED else None
    if zygote is None or not zygote.fits(env):
        if zygote is not None:
            _release(zygote)
        return subprocess.run(
            [*cmd, *args],
            cwd=cwd,
            env=dict(env),
            input=input,
            stdin=subprocess.DEVNULL if input is None else None,
            capture_output=True,
            timeout=timeout,
        )
    try:
        return _Call(zygote, [*cmd, *args], list(args), cwd, env, input, timeout).run()
    finally:
        _release(zygote)


class _Call:
    """One command through the zygote: its pipes, the pid and status over the socket."""

    def __init__(
        self,
        zygote: Zygote,
        full: list[str],
        args: list[str],
        cwd: Path,
        env: Mapping[str, str],
        input: bytes | None,
        timeout: float,
    ) -> None:
        self.full, self.input, self.timeout = full, input or b"", timeout
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        if input is None:
            in_r, self.in_w = os.open(os.devnull, os.O_RDONLY), -1
        else:
            in_r, self.in_w = os.pipe()
            os.set_blocking(self.in_w, False)
        self.out_r, self.err_r = out_r, err_r
        body = json.dumps({"args": args, "cwd": str(cwd), "env": dict(env)}).encode()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.connect(zygote.socket_path)
            socket.send_fds(self.sock, [HEADER.pack(len(body))], [in_r, out_w, err_w])
            self.sock.sendall(body)
        finally:
            for fd in (in_r, out_w, err_w):
                os.close(fd)
        self.pid = self._read_number()

    def _read_number(self) -> int:
        data = b""
        while len(data) < HEADER.size:
            chunk = self.sock.recv(HEADER.size - len(data))
            if not chunk:
                raise RuntimeError("the zygote closed the connection")
            data += chunk
        (value,) = HEADER.unpack(data)
        return int(value)

    def run(self) -> subprocess.CompletedProcess[bytes]:
        deadline = time.monotonic() + self.timeout
        out, err = bytearray(), bytearray()
        status = self._collect(out, err, deadline)
        if status is None:  # as subprocess.run: kill it, then take what it printed
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self._collect(out, err, None)
            raise subprocess.TimeoutExpired(self.full, self.timeout, bytes(out), bytes(err))
        return subprocess.CompletedProcess(
            self.full, os.waitstatus_to_exitcode(status), bytes(out), bytes(err)
        )

    def _collect(self, out: bytearray, err: bytearray, deadline: float | None) -> int | None:
        """Read both pipes to their end, feed stdin, then the wait status; None on the deadline."""
        selector = selectors.DefaultSelector()
        sinks = {self.out_r: out, self.err_r: err}
        for fd in sinks:
            if fd >= 0:
                selector.register(fd, selectors.EVENT_READ)
        if self.in_w >= 0:
            selector.register(self.in_w, selectors.EVENT_WRITE)
        try:
            while selector.get_map():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                for key, _ in selector.select(left):
                    if key.fd == self.in_w:
                        self._feed(selector)
                        continue
                    chunk = os.read(key.fd, 65536)
                    if chunk:
                        sinks[key.fd] += chunk
                        continue
                    selector.unregister(key.fd)
                    os.close(key.fd)
                    if key.fd == self.out_r:
                        self.out_r = -1
                    else:
                        self.err_r = -1
        finally:
            selector.close()
        left = None if deadline is None else max(deadline - time.monotonic(), 0.001)
        self.sock.settimeout(left)
        try:
            status = self._read_number()
        except TimeoutError:
            return None
        self.sock.close()
        return status

    def _feed(self, selector: selectors.BaseSelector) -> None:
        try:
            sent = os.write(self.in_w, self.input[:65536])
        except BrokenPipeError:  # it stopped reading: as communicate(), not an error
            sent = len(self.input)
        self.input = self.input[sent:]
        if not self.input:
            selector.unregister(self.in_w)
            os.close(self.in_w)
            self.in_w = -1
