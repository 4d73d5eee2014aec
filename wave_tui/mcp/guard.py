"""Launcher that keeps an stdio MCP server from outliving wave (stdlib only, no wave imports).

    python -I …/wave_tui/mcp/guard.py --parent-pid PID [--pdeathsig] [--max-line-bytes N]
        -- COMMAND [ARGS…]

The SDK spawns its stdio child itself, in a new session, with no parent-death signal, so a
killed wave would leave the server running. The SDK spawns this guard instead. The guard starts
the real server in its own process group (the server inherits the MCP pipes; the guard closes
its copies so end-of-file passes straight through) and ends the whole group when wave is gone:
PR_SET_PDEATHSIG on the guard (only when wave spawned it from its main thread — the signal
fires when the spawning *thread* ends), a poll of its parent pid as the backstop, and the
server itself dies with the guard (its own PR_SET_PDEATHSIG). SIGTERM/SIGINT/SIGHUP to the guard
end the group too. The guard exits with the server's exit code.

    python -I …/wave_tui/mcp/guard.py --parent-pid PID [--pdeathsig] --sweep-env NAME=VALUE

In this second form it runs no command: it waits for wave to be gone (or for SIGTERM) and then
kills every process whose environment holds NAME=VALUE — background commands mark theirs, so
one that left its process group (`setsid`, a double fork) still ends with wave.

With `--max-line-bytes` the guard also relays the server's stdout, in bounded memory: a message
(one line) longer than that is not passed on — the SDK would read it whole, slower and slower —
and a request it answered gets a JSON-RPC error in its place, so the call ends at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from types import FrameType

PARENT_POLL_S = 0.25
STOP_GRACE_S = 2.0
EXIT_NOT_STARTED = 127
RELAY_CHUNK = 1 << 16
# The id of an over-long answer is looked for in its first bytes (servers write it first).
ID_SCAN_BYTES = 4096
_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')
_PR_SET_PDEATHSIG = 1
_LINUX = sys.platform.startswith("linux")


def _set_pdeathsig(sig: int) -> None:
    if _LINUX:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)


def _parse(argv: list[str]) -> tuple[int, bool, int | None, list[str]]:
    if "--" not in argv:
        raise SystemExit("usage: guard.py --parent-pid PID [--pdeathsig] -- COMMAND [ARGS...]")
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    if not command or "--parent-pid" not in options:
        raise SystemExit("guard.py: --parent-pid and a command are required")
    parent = int(options[options.index("--parent-pid") + 1])
    limit = None
    if "--max-line-bytes" in options:
        limit = int(options[options.index("--max-line-bytes") + 1])
    return parent, "--pdeathsig" in options, limit, command


def _too_long(head: bytes, size: int, limit: int) -> bytes:
    """What replaces an over-long message: an error for its id, or nothing (a notification)."""
    found = _ID.search(head[:ID_SCAN_BYTES])
    if found is None or b'"method"' in head[:ID_SCAN_BYTES]:
        return b""
    error = {
        "jsonrpc": "2.0",
        "id": json.loads(found.group(1)),
        "error": {
            "code": -32603,
            "message": f"the server's answer was {size:,}+ bytes; at most {limit:,} are read",
        },
    }
    return json.dumps(error).encode() + b"\n"


def relay_lines(source: int, sink: int, limit: int) -> None:
    """Copy lines from `source` to `sink`; a line over `limit` bytes is dropped (see above)."""
    line = bytearray()
    dropping = False
    dropped = 0
    while True:
        chunk = os.read(source, RELAY_CHUNK)
        if not chunk:
            return
        while chunk:
            end = chunk.find(b"\n")
            piece, chunk = (chunk, b"") if end < 0 else (chunk[: end + 1], chunk[end + 1 :])
            if dropping:
                dropped += len(piece)
            elif len(line) + len(piece) > limit:
                dropping, dropped = True, len(line) + len(piece)
                del line[ID_SCAN_BYTES:]
                line += piece[: max(0, ID_SCAN_BYTES - len(line))]
            else:
                line += piece
            if end < 0:
                continue
            out = _too_long(bytes(line), dropped, limit) if dropping else bytes(line)
            _write_all(sink, out)
            line.clear()
            dropping = False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class _Guard:
    def __init__(self, parent: int, command: list[str], max_line_bytes: int | None) -> None:
        self.parent = parent
        self.command = command
        self.max_line_bytes = max_line_bytes
        self.child: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Lock()

    def stop(self) -> None:
        """End the server's process group: SIGTERM, a grace period, then SIGKILL; exit."""
        if not self._stopping.acquire(blocking=False):
            return
        child = self.child
        if child is not None and child.poll() is None:
            _signal_group(child.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(STOP_GRACE_S)
            _signal_group(child.pid, signal.SIGKILL)
        os._exit(0)

    def watch_parent(self) -> None:
        while os.getppid() == self.parent:
            time.sleep(PARENT_POLL_S)
        self.stop()

    def on_signal(self, _signum: int, _frame: FrameType | None) -> None:
        threading.Thread(target=self.stop, daemon=True).start()

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self.on_signal)
        try:
            self.child = subprocess.Popen(
                self.command,
                process_group=0,  # its own group: the guard can end the server and its children
                preexec_fn=_child_dies_with_guard if _LINUX else None,
                stdout=subprocess.PIPE if self.max_line_bytes is not None else None,
            )
        except OSError as exc:
            sys.stderr.write(f"cannot start {self.command[0]}: {exc.strerror or exc}\n")
            sys.stderr.flush()
            return EXIT_NOT_STARTED
        # The server holds the pipes now; the guard's copies would hide its end-of-file.
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        relay = None
        if self.child.stdout is not None and self.max_line_bytes is not None:
            sink = os.dup(1)
            relay = threading.Thread(
                target=self._relay, args=(self.child.stdout.fileno(), sink), daemon=True
            )
            relay.start()
        os.dup2(devnull, 1)
        threading.Thread(target=self.watch_parent, daemon=True).start()
        code = self.child.wait()
        _signal_group(self.child.pid, signal.SIGKILL)  # leftovers of a server that exited
        if relay is not None:
            relay.join(STOP_GRACE_S)  # what the server wrote before it exited still reaches wave
        return code if code >= 0 else 128 - code

    def _relay(self, source: int, sink: int) -> None:
        assert self.max_line_bytes is not None
        try:
            relay_lines(source, sink, self.max_line_bytes)
        except OSError:
            pass  # wave closed its end: nothing more to relay
        finally:
            os.close(sink)  # the server's end of output is wave's end-of-file


def _child_dies_with_guard() -> None:
    _set_pdeathsig(signal.SIGKILL)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


SWEEP_ROUNDS = 3  # a process forking while it is swept is caught by the next round


def marked_pids(marker: bytes) -> list[int]:
    """Every process (of this user) whose environment holds `marker` (`NAME=VALUE`)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                environ = fh.read().split(b"\0")
        except OSError:
            continue
        if marker in environ:
            found.append(int(entry))
    return found


def sweep(marker: bytes) -> None:
    """SIGKILL every marked process and the group each leads."""
    for _ in range(SWEEP_ROUNDS):
        pids = marked_pids(marker)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if os.getpgid(pid) == pid:
                    os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


def _sweeper(parent: int, marker: bytes) -> int:
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: done.set())
    while os.getppid() == parent and not done.wait(PARENT_POLL_S):
        pass
    sweep(marker)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--sweep-env" in args and "--" not in args:
        parent = int(args[args.index("--parent-pid") + 1])
        marker = args[args.index("--sweep-env") + 1].encode("utf-8", "surrogateescape")
        if "--pdeathsig" in args:
            _set_pdeathsig(signal.SIGTERM)
        if os.getppid() != parent:
            sweep(marker)
            return 0
        return _sweeper(parent, marker)
    parent, pdeathsig, limit, command = _parse(args)
    if pdeathsig:
        _set_pdeathsig(signal.SIGTERM)
    if os.getppid() != parent:  # wave died before the death signal was armed
        return 0
    return _Guard(parent, command, limit).run()


if __name__ == "__main__":
    sys.exit(main())
