"""The `wave daemon` process: one per user, listening on `~/.wave/daemon/daemon.sock` (0600).

It hosts the sessions (`hosted.py`), answers the clients' requests (`handlers.py`), keeps the
registry on disk after every change so a restarted daemon restores each session with its
conversation and permission mode (DM3), and exits once it has had no session for a while.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import IO, Any

from wave_tui.config.paths import WavePaths
from wave_tui.session.daemon.folder import UnsafeDaemonFolder, ensure_private_folder
from wave_tui.session.daemon.protocol import MAX_LINE_BYTES, decode, encode, failure, idle_seconds
from wave_tui.session.daemon.registry import SessionRecord, save_records

ALREADY_RUNNING = 0  # another daemon holds the lock: the client talks to that one
DAEMON_FAILED = 1


class DaemonServer:
    """The sessions, the clients' connections and the idle timer of one daemon."""

    def __init__(self, paths: WavePaths, idle_s: float) -> None:
        from wave_tui.session.daemon.hosted import HostedSession

        self.paths = paths
        self.idle_s = idle_s
        self.sessions: dict[str, HostedSession] = {}
        self.changed = asyncio.Condition()  # notified after any session changed (waiters wake)
        self.stopping = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._clients = 0
        self._idle: asyncio.Task[None] | None = None
        self._saving: asyncio.Task[None] | None = None
        self._save_again = False
        self.closing = False  # stopping: the sessions end, their records stay for the next daemon

    # -- bookkeeping -----------------------------------------------------------------------
    def own(self, task: asyncio.Task[None]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def session_changed(self, _hosted: object = None) -> None:
        """Wake the waiters and save the registry (called synchronously by the sessions)."""
        if self.closing:
            return
        self.own(asyncio.get_running_loop().create_task(self._notify()))
        self.save()
        self._idle_check()

    async def _notify(self) -> None:
        async with self.changed:
            self.changed.notify_all()

    def records(self) -> list[SessionRecord]:
        return [h.entry for h in self.sessions.values()]

    def save(self) -> None:
        """Write the registry on a thread; changes meanwhile are written by one more save."""
        if self.closing:
            return
        if self._saving is not None and not self._saving.done():
            self._save_again = True
            return
        self._saving = asyncio.get_running_loop().create_task(self._save())

    async def _save(self) -> None:
        while True:
            self._save_again = False
            await asyncio.to_thread(save_records, self.paths.daemon_registry, self.records())
            if not self._save_again:
                return

    async def flush(self) -> None:
        """Until the registry on disk is what the sessions are now."""
        while self._saving is not None and not self._saving.done():
            await self._saving

    # -- idle exit -------------------------------------------------------------------------
    def _idle_check(self) -> None:
        idle = not self.sessions and self._clients == 0
        if idle and (self._idle is None or self._idle.done()):
            self._idle = asyncio.get_running_loop().create_task(self._exit_when_idle())
        elif not idle and self._idle is not None:
            self._idle.cancel()
            self._idle = None

    async def _exit_when_idle(self) -> None:
        await asyncio.sleep(self.idle_s)
        if not self.sessions and self._clients == 0:
            self.stopping.set()

    # -- connections -----------------------------------------------------------------------
    # req: HR6
    async def client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        from wave_tui.session.daemon.attached import serve_attached
        from wave_tui.session.daemon.handlers import handle

        self._clients += 1
        self._idle_check()
        try:
            while not reader.at_eof():
                try:
                    line = await reader.readline()
                except ValueError:  # past MAX_LINE_BYTES: the rest of the line is not read
                    writer.write(
                        encode(failure(f"bad request: a line over {MAX_LINE_BYTES} bytes"))
                    )
                    await writer.drain()
                    break
                if not line.strip():
                    break
                try:
                    request = decode(line)
                except ValueError as exc:
                    answer: dict[str, Any] | None = failure(f"bad request: {exc}")
                else:
                    if request.get("op") == "attach":  # the connection becomes a stream
                        await serve_attached(self, request, reader, writer)
                        break
                    work = handle(self, request)
                    answer = await (
                        _unless_gone(work, reader) if request.get("op") == "wait" else work
                    )
                if answer is None:
                    break
                writer.write(encode(answer))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # the client went away: what it started goes on
        finally:
            self._clients -= 1
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
            self._idle_check()

    async def close(self) -> None:
        await self.flush()
        self.closing = True
        for hosted in list(self.sessions.values()):
            await hosted.close()
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._idle is not None:
            self._idle.cancel()


async def _unless_gone(
    work: Coroutine[Any, Any, dict[str, Any]], reader: asyncio.StreamReader
) -> dict[str, Any] | None:
    """A `wait`'s answer, or None once its client went away: a client that waits sends
    nothing more, so anything read meanwhile is its end."""
    waiting = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(reader.read(1))
    try:
        await asyncio.wait({waiting, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (waiting, gone):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
    return waiting.result() if waiting.done() and not waiting.cancelled() else None


def _hold_lock(path: Path) -> IO[str] | None:
    """The daemon's lock, held for the process's life (the kernel drops it when it dies);
    None when another daemon holds it."""
    handle = path.open("a+", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


# req: DM1
async def serve(paths: WavePaths) -> int:
    """Run the daemon until it is idle or told to stop (SIGTERM, `stop`)."""
    from wave_tui.session.daemon.restore import restore_sessions

    try:
        ensure_private_folder(paths.daemon_dir)
    except (UnsafeDaemonFolder, OSError) as exc:
        print(f"wave daemon: {exc}", file=sys.stderr)
        return DAEMON_FAILED
    lock = _hold_lock(paths.daemon_lock)
    if lock is None:
        return ALREADY_RUNNING
    socket_path = paths.daemon_socket
    socket_path.unlink(missing_ok=True)  # left by a daemon that was killed
    daemon = DaemonServer(paths, idle_seconds())
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, daemon.stopping.set)
    # Before listening: no client may see the daemon without its sessions. No idle timer
    # yet: the client that started this daemon is about to connect.
    await restore_sessions(daemon)
    old_umask = os.umask(0o177)  # the socket is born 0600: no moment where others may connect
    try:
        server = await asyncio.start_unix_server(
            daemon.client, path=str(socket_path), limit=MAX_LINE_BYTES
        )
    finally:
        os.umask(old_umask)
    os.chmod(socket_path, 0o600)
    try:
        async with server:
            await daemon.stopping.wait()
    finally:
        server.close()
        await daemon.close()
        await daemon.flush()
        socket_path.unlink(missing_ok=True)
        lock.close()
    return 0
