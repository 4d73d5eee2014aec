"""The tests' `wave` starter: a process that imports wave once and forks one child per command.

Started by `tests/zygote.py` (one per test worker) as `python -m tests.zygote_server SOCKET`.
It imports what a `wave -p` turn imports, then serves requests on the Unix socket SOCKET: each
brings the arguments, working folder and environment of one `wave` command, with its standard
input, output and error as file descriptors (SCM_RIGHTS). The server forks; the child takes the
three descriptors, the folder, the environment and `sys.argv`, and runs `wave_tui.cli.main`
exactly as `python -m wave_tui` does, ending through the interpreter's own exit (threads
joined, `atexit`, streams flushed, or `os._exit` after `-p`). The server sends the child's pid,
then its wait status. It never starts a thread or an event loop, so each fork is a clean copy.
It ends when its standard input closes (the test worker has gone).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import selectors
import socket
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

# What a `wave -p` turn imports, beyond `wave_tui.cli.main` (the HTTP stack loads with the first
# request): the ~0.4 s every spawned `wave` would pay again.
PREIMPORT = (
    "wave_tui.config.terminal_text",
    "wave_tui.cli.headless",
    "wave_tui.cli.output",
    "wave_tui.session.facade",
    "wave_tui.features.worktrees.tools",
    "wave_tui.features.cron.tools",
    "wave_tui.llm.client",
    "wave_tui.llm.adapt",
    "wave_tui.llm.assembly",
    "wave_tui.llm.model_list",
    "wave_tui.llm.ollama",
    "wave_tui.net.http",
    "httpx",
    "httpx_sse",
    "httpcore",
    "httpcore._backends.anyio",
    "anyio._core._sockets",
    "anyio.streams.tls",
)
MAIN_PATH = str(Path(__file__).resolve().parent.parent / "wave_tui" / "__main__.py")
HEADER = struct.Struct("!Q")  # the request's length; then the pid, then the wait status
STDIO = 3


@dataclass(frozen=True)
class Request:
    args: list[str]
    cwd: str
    env: dict[str, str]
    fds: list[int]  # stdin, stdout, stderr


def main() -> None:
    path = sys.argv[1]
    _warm()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    sys.stdout.write("READY\n")
    sys.stdout.flush()
    request = _serve(listener)  # returns only in a forked child
    _become(request)
    from wave_tui.cli.main import main as wave_main

    raise SystemExit(wave_main())


def _warm() -> None:
    import wave_tui.cli.main  # noqa: F401  # what `python -m wave_tui` imports first
    from wave_tui.cli.process import without_pydantic_plugins

    without_pydantic_plugins()  # as `main()` does before pydantic builds its first model
    for name in PREIMPORT:
        importlib.import_module(name)
    tasks = os.listdir("/proc/self/task")
    if len(tasks) != 1:  # a fork copies one thread: the others' locks would stay held
        raise SystemExit(f"zygote: {len(tasks)} threads after the imports; it forks only with one")


def _serve(listener: socket.socket) -> Request:
    """Accept requests and report children's ends until the test worker goes; in a child,
    return its request."""
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, None)
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, None)
    children: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, connection)
    while True:
        for key, _ in selector.select():
            if key.fileobj is listener:
                conn, _ = listener.accept()
                request = _receive(conn)
                pid = os.fork()
                if pid == 0:
                    selector.close()
                    listener.close()
                    conn.close()
                    for pidfd, (_, other) in children.items():
                        os.close(pidfd)
                        other.close()
                    return request
                for fd in request.fds:
                    os.close(fd)
                pidfd = os.pidfd_open(pid)
                children[pidfd] = (pid, conn)
                selector.register(pidfd, selectors.EVENT_READ, None)
                _send(conn, pid)
            elif key.fd == sys.stdin.fileno():
                if not os.read(key.fd, 4096):
                    os._exit(0)
            else:
                pid, conn = children.pop(key.fd)
                selector.unregister(key.fd)
                os.close(key.fd)
                _, status = os.waitpid(pid, 0)
                _send(conn, status)
                conn.close()


def _send(conn: socket.socket, value: int) -> None:
    with contextlib.suppress(OSError):  # the test gave up on the command (its timeout)
        conn.sendall(HEADER.pack(value))


def _receive(conn: socket.socket) -> Request:
    head, fds, _, _ = socket.recv_fds(conn, HEADER.size, STDIO)
    while len(head) < HEADER.size:
        head += conn.recv(HEADER.size - len(head))
    (size,) = HEADER.unpack(head)
    body = bytearray()
    while len(body) < size:
        chunk = conn.recv(min(size - len(body), 1 << 20))
        if not chunk:
            break
        body += chunk
    data = json.loads(body)
    return Request(data["args"], data["cwd"], data["env"], list(fds))


def _become(request: Request) -> None:
    """This child takes the command's place: its streams, folder, environment and arguments,
    as `python -m wave_tui` run by `subprocess` would have them."""
    import tempfile
    import time

    for target, fd in enumerate(request.fds):
        os.dup2(fd, target)
    for fd in request.fds:
        if fd > 2:
            os.close(fd)
    os.chdir(request.cwd)
    os.environ.clear()
    os.environ.update(request.env)
    time.tzset()
    tempfile.tempdir = None  # read again from TMPDIR
    sys.argv = [MAIN_PATH, *request.args]
    sys.path[0] = os.getcwd()  # `-m` puts the current folder first
    stdin = _stream(0, sys.stdin, "<stdin>")
    stdout = _stream(1, sys.stdout, "<stdout>")
    stderr = _stream(2, sys.stderr, "<stderr>")
    sys.stdin = sys.__stdin__ = stdin  # type: ignore[misc]  # as at start-up: both the same
    sys.stdout = sys.__stdout__ = stdout  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = stderr  # type: ignore[misc]


def _stream(fd: int, like: io.TextIOWrapper | object, name: str) -> io.TextIOWrapper:
    """A standard stream on `fd` made as the interpreter makes it at start-up: buffered, line
    buffered on a terminal (stderr always), the encoding and error handler of the original."""
    reading = fd == 0
    # The interpreter's own recipe (buffer size from the descriptor); the stream lives as long
    # as the process, so no context manager.
    buffer = open(fd, "rb" if reading else "wb", buffering=-1, closefd=False)  # noqa: SIM115
    buffer.raw.name = name  # type: ignore[attr-defined]  # CPython names its standard streams
    assert isinstance(like, io.TextIOWrapper)
    text = io.TextIOWrapper(
        buffer,
        encoding=like.encoding,
        errors=like.errors,
        newline="\n",
        line_buffering=not reading and (fd == 2 or buffer.isatty()),
    )
    text.mode = "r" if reading else "w"  # type: ignore[misc]
    return text


if __name__ == "__main__":
    main()
