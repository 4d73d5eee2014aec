"""One MCP server: connect, initialize, list tools, serve calls, follow list changes, end.

This is the only module that imports the `mcp` SDK; the manager loads it lazily. The SDK's
transports are anyio context managers that must be entered and left in one task, so each
server lives in one task (`run`, owned by the manager) and `stop()` only asks it to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import IO, Any, Literal

import wave_tui.net.http  # noqa: F401  first: the mcp SDK imports httpx (see that module)

# isort: split
import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import ClientSession, McpError, StdioServerParameters, types
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

from wave_tui.mcp.client_host import ClientHost, progress_line
from wave_tui.mcp.client_requests import ClientRequests
from wave_tui.mcp.config import HttpServer, ServerConfig, SseServer, StdioServer
from wave_tui.mcp.http_auth import Consent, auth_problem, server_auth
from wave_tui.mcp.remote_lists import RemoteLists
from wave_tui.mcp.results import call_failed, cap_instructions, convert_result
from wave_tui.mcp.tools import RemoteTool
from wave_tui.net.mcp_http import (
    MCP_CONNECT_TIMEOUT_S,
    MCP_MESSAGE_MAX_BYTES,
    MCP_STREAM_READ_TIMEOUT_S,
    mcp_client_factory,
    mcp_http_client,
)
from wave_tui.tools.base import RUNNING_CALL, ToolResult, error_result

ServerState = Literal["starting", "ready", "needs-auth", "failed", "stopped"]
GUARD = Path(__file__).with_name("guard.py")
CLIENT_INFO = types.Implementation(name="wave-tui", version="0.1.0")
# A refresh after `notifications/tools/list_changed` is waited for at most this long by a call
# that returned meanwhile, so the next request sees the new list.
REFRESH_WAIT_S = 5.0
_Incoming = SessionMessage | Exception
# One message from a stdio server is read up to this size (the guard drops a longer one and
# answers its request with an error); HTTP answers are bounded alike (`net/mcp_bounded.py`).
MESSAGE_MAX_BYTES = MCP_MESSAGE_MAX_BYTES


class ServerConnection:
    def __init__(
        self,
        config: ServerConfig,
        *,
        workdir: Path,
        startup_timeout: float,
        call_timeout: float,
        notify: Callable[[str], None],
        on_change: Callable[[], None],
        auth_file: Path | None = None,
        consent: Consent | None = None,
        host: ClientHost | None = None,
    ) -> None:
        self.config = config
        # Roots, elicitation, sampling and logs are answered (and advertised) only with a host.
        self.requests = ClientRequests(config.name, host) if host is not None else None
        self.workdir = workdir
        self.auth_file = auth_file
        self.consent = consent
        # An authorization waits for the user's browser as well as for the server.
        self.startup_timeout = startup_timeout + (consent.wait_s if consent else 0.0)
        self.call_timeout = call_timeout
        self._notify = notify
        self._on_change = on_change
        self.state: ServerState = "starting"
        self.last_error: str | None = None
        self.instructions: str | None = None
        self.tools: tuple[RemoteTool, ...] = ()
        # Tools that can only run as tasks (`execution.taskSupport: "required"`): not offered.
        self.task_only: tuple[str, ...] = ()
        self.lists = RemoteLists()  # resources and prompts
        self.started = asyncio.Event()  # set once the state left "starting"
        self._session: ClientSession | None = None
        self._end = asyncio.Event()  # asks `run` to leave the session
        self._gone = asyncio.Event()  # the session is over (stopped, failed or crashed)
        self._stale = asyncio.Event()
        self._fresh = asyncio.Event()
        self._fresh.set()
        self._stopping = False
        self._errlog: IO[str] | None = None

    # -- life ------------------------------------------------------------------------------

    async def run(self) -> None:  # req: MC2
        try:
            async with self._transport() as (read, write):
                await self._serve(read, write)
        except Exception as exc:  # the transports raise groups and anything below them
            needed, failure = auth_problem(exc, self.consent)
            if needed is not None and not self._stopping:
                self._needs_auth(needed)
            elif failure is not None and not self._stopping:
                self._fail(f"authorization failed: {failure}", starting=self.state == "starting")
            elif not self._stopping:
                reason, tail = _describe(exc), await asyncio.to_thread(self._stderr_tail)
                if isinstance(_leaf(exc), TimeoutError) and self.state == "starting":
                    reason = tail = f"no answer to initialize within {self.startup_timeout:g} s"
                # "Connection closed" says less than the server's own last words.
                self._fail(tail or reason, starting=self.state == "starting")
        finally:
            self._session = None
            self._gone.set()
            if self.state in ("starting", "ready"):
                if self._stopping:
                    self.tools = ()
                    self._set_state("stopped")
                else:
                    self._fail("the server closed the connection", starting=False)
            self._fresh.set()
            if self._errlog is not None:
                self._errlog.close()
                self._errlog = None

    def stop(self) -> None:
        self._stopping = True
        self._end.set()

    async def _serve(
        self,
        read: MemoryObjectReceiveStream[_Incoming],
        write: MemoryObjectSendStream[SessionMessage],
    ) -> None:
        send, receive = anyio.create_memory_object_stream[_Incoming](0)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._pump, read, send)
            try:
                extra = self.requests.session_kwargs() if self.requests is not None else {}
                async with ClientSession(
                    receive,
                    write,
                    message_handler=self._on_message,
                    client_info=CLIENT_INFO,
                    **extra,
                ) as session:
                    with anyio.fail_after(self.startup_timeout):
                        init = await session.initialize()
                        self.tools, self.task_only = await _list_tools(session)
                    self._session = session
                    self.instructions = (
                        cap_instructions(init.instructions) if init.instructions else None
                    )
                    await self.lists.load(session, init.capabilities)
                    self._set_state("ready")
                    tg.start_soon(self._refresh_loop, session)
                    await self._end.wait()
            finally:
                tg.cancel_scope.cancel()

    # req: MC7
    async def _pump(
        self, read: MemoryObjectReceiveStream[_Incoming], send: MemoryObjectSendStream[_Incoming]
    ) -> None:
        """Forward the transport's messages to the session; their end is the server's end."""
        async with send:
            async for message in read:
                await send.send(message)
        if not self._stopping and self.state == "ready":
            self._fail(await self._exit_reason(), starting=False)
        self._end.set()

    @asynccontextmanager
    async def _transport(
        self,
    ) -> AsyncIterator[
        tuple[MemoryObjectReceiveStream[_Incoming], MemoryObjectSendStream[SessionMessage]]
    ]:
        config = self.config
        if isinstance(config, HttpServer):
            async with (
                server_auth(config, self.auth_file, self.consent) as auth,
                mcp_http_client(config.url, dict(config.headers), auth) as http,
                streamable_http_client(config.url, http_client=http) as (read, write, _),
            ):
                yield read, write
            return
        if isinstance(config, SseServer):
            async with (
                server_auth(config, self.auth_file, self.consent) as auth,
                sse_client(
                    config.url,
                    dict(config.headers),
                    timeout=MCP_CONNECT_TIMEOUT_S,
                    sse_read_timeout=MCP_STREAM_READ_TIMEOUT_S,
                    httpx_client_factory=mcp_client_factory(config.url),
                    auth=auth,
                ) as (read, write),
            ):
                yield read, write
            return
        self._errlog = tempfile.TemporaryFile("w+", prefix="wave-mcp-")  # noqa: SIM115
        async with stdio_client(_guarded(config, self.workdir), errlog=self._errlog) as streams:
            yield streams

    async def _exit_reason(self) -> str:
        tail = await asyncio.to_thread(self._stderr_tail)
        return f"the server exited ({tail})" if tail else "the server exited"

    def _stderr_tail(self) -> str:
        log = self._errlog
        if log is None or log.closed:
            return ""
        with contextlib.suppress(OSError, ValueError):
            log.seek(0)
            lines = [ln.strip() for ln in log.read().splitlines() if ln.strip()]
            return lines[-1][:200] if lines else ""
        return ""

    # -- state -----------------------------------------------------------------------------

    def _set_state(self, state: ServerState) -> None:
        self.state = state
        if state != "starting":
            self.started.set()
        self._on_change()

    def _needs_auth(self, reason: str) -> None:  # req: MO2
        """Not a crash: the server wants the user's authorization first; one line says how."""
        name = self.config.name
        self.tools = ()
        why = f" ({reason})" if reason else ""
        self.last_error = f"needs authorization{why}: /mcp auth {name}"
        self._set_state("needs-auth")
        self._notify(f"MCP server {name!r} needs authorization{why}: run wave mcp auth {name}")

    def _fail(self, reason: str, *, starting: bool) -> None:  # req: MC7
        if self.state == "failed":
            return
        self.last_error = reason
        self.tools = ()
        self._set_state("failed")
        what = "failed to start" if starting else "stopped"
        self._notify(f"MCP server {self.config.name!r} {what}: {reason}")

    # -- tools -----------------------------------------------------------------------------

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ToolListChangedNotification
        ):
            self._fresh.clear()
            self._stale.set()
        elif isinstance(message, types.ServerNotification) and isinstance(
            message.root,
            types.ResourceListChangedNotification | types.PromptListChangedNotification,
        ):
            self.lists.stale.set()

    async def _refresh_loop(self, session: ClientSession) -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(self.lists.follow, session, self.call_timeout, self._on_change)
            await self._refresh_tools(session)

    async def _refresh_tools(self, session: ClientSession) -> None:
        while True:
            await self._stale.wait()
            self._stale.clear()
            try:
                with anyio.fail_after(self.call_timeout):
                    self.tools, self.task_only = await _list_tools(session)
            except (McpError, TimeoutError) as exc:
                self.last_error = f"tools/list failed: {_describe(exc)}"
            if not self._stale.is_set():
                self._fresh.set()
            self._on_change()

    async def call(self, tool: str, args: dict[str, Any], label: str) -> ToolResult:  # req: MC4
        with self.open_request():
            return await self._call(tool, args, label)

    def open_request(self) -> contextlib.AbstractContextManager[None]:  # req: MA2
        """Around a request of wave's to the server: the server may sample meanwhile."""
        if self.requests is None:
            return contextlib.nullcontext()
        return self.requests.open_request()

    async def _call(self, tool: str, args: dict[str, Any], label: str) -> ToolResult:
        session = self._session
        if session is None or self.state != "ready":
            why = f": {self.last_error}" if self.last_error else ""
            return error_result(
                f"MCP server {self.config.name!r} is not running ({self.state}{why}); "
                f"/mcp restart {self.config.name} starts it again."
            )
        name = self.config.name
        request = asyncio.ensure_future(
            session.call_tool(
                tool,
                args,
                read_timeout_seconds=timedelta(seconds=self.call_timeout),
                progress_callback=self._progress_of(tool),
            )
        )
        gone = asyncio.ensure_future(self._gone.wait())
        try:
            # A server that dies mid-call ends the call at once, not at its timeout.
            done, _ = await asyncio.wait(
                {request, gone}, timeout=self.call_timeout + 1.0, return_when="FIRST_COMPLETED"
            )
        finally:
            gone.cancel()
            if not request.done():
                request.cancel()
        if request not in done:
            if gone in done:
                return call_failed(f"MCP server {name!r} stopped during {tool}: {self.last_error}")
            return self._timed_out(tool)
        try:
            result = request.result()
        except McpError as exc:
            if _is_timeout(exc):
                return self._timed_out(tool)
            if exc.error.code == types.CONNECTION_CLOSED:
                with contextlib.suppress(TimeoutError):  # the reason arrives with the end
                    await asyncio.wait_for(self._gone.wait(), REFRESH_WAIT_S)
            if self.state != "ready":
                return call_failed(f"MCP server {name!r} stopped during {tool}: {self.last_error}")
            return call_failed(f"{label} failed: {exc.error.message}")
        except Exception as exc:  # a transport failure mid-call (HTTP server gone)
            return call_failed(f"{label} failed: {_describe(exc)}")
        if not self._fresh.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._fresh.wait(), REFRESH_WAIT_S)
        return await asyncio.to_thread(
            convert_result, result.content, result.structuredContent, result.isError, label
        )

    def _progress_of(self, tool: str) -> Any:
        """A progress callback for one call (the SDK then sends `_meta.progressToken`)."""
        requests = self.requests
        if requests is None:
            return None
        call_id = RUNNING_CALL.get()  # the callback runs in the session's reader task, not here

        # req: MA4
        async def progressed(progress: float, total: float | None, message: str | None) -> None:
            line = progress_line(progress, total, message)
            requests.host.progress(self.config.name, tool, line, call_id)

        return progressed

    async def roots_changed(self) -> None:  # req: MA1
        """Tell the server its roots changed (the session moved into or out of a worktree)."""
        session = self.session()
        if session is not None and self.requests is not None:
            with contextlib.suppress(Exception):  # a server gone meanwhile ends by itself
                await session.send_roots_list_changed()

    def session(self) -> ClientSession | None:
        """The live session when the server is ready (resources and prompts ask through it)."""
        return self._session if self.state == "ready" else None

    def _timed_out(self, tool: str) -> ToolResult:  # req: MC7
        message = (
            f"MCP server {self.config.name!r} did not answer {tool} within {self.call_timeout:g} s"
        )
        if self.state == "ready":
            self.last_error = message
            self._notify(message)
            self._on_change()
        return error_result(message)


# req: MA5
async def _list_tools(session: ClientSession) -> tuple[tuple[RemoteTool, ...], tuple[str, ...]]:
    """The tools wave can call, and the names of those that only run as tasks (which wave does
    not call: every plain call of one fails)."""
    found: list[RemoteTool] = []
    task_only: list[str] = []
    cursor: str | None = None
    while True:
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
        for t in page.tools:
            if t.execution is not None and t.execution.taskSupport == "required":
                task_only.append(t.name)
            else:
                found.append(RemoteTool(t.name, t.description or "", dict(t.inputSchema)))
        cursor = page.nextCursor
        if not cursor:
            return tuple(found), tuple(task_only)


def _guarded(config: StdioServer, workdir: Path) -> StdioServerParameters:  # req: MC8
    """The server's command behind the guard launcher, with the full environment passed."""
    command = [sys.executable, "-I", str(GUARD), "--parent-pid", str(os.getpid())]
    # PR_SET_PDEATHSIG fires when the spawning *thread* ends: only safe from the main thread.
    if threading.current_thread() is threading.main_thread():
        command.append("--pdeathsig")
    command += ["--max-line-bytes", str(MESSAGE_MAX_BYTES), "--", config.command, *config.args]
    env = {**os.environ, **config.env}
    return StdioServerParameters(
        command=command[0], args=command[1:], env=env, cwd=config.cwd or workdir
    )


def _is_timeout(exc: McpError) -> bool:
    return exc.error.code == 408 or "timed out" in exc.error.message.lower()


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    exc = _leaf(exc)
    if isinstance(exc, McpError):
        return exc.error.message
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
