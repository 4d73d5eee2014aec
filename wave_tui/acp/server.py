"""`wave --acp`: wave as an Agent Client Protocol agent on stdio, one SDK `Agent` per session.

Each ACP session is an `Agent` (the SDK's public surface, so the session facade the app uses:
AGENTS.md, rules, auto memory and its extraction fork behave exactly as in the app).
`session/prompt` streams the turn as `session/update` notifications — message and thought
chunks, tool calls and their updates, the task list as a `plan` — and a call that needs
approval becomes `session/request_permission` (allow / reject, once or always).
`session/new` and `session/load` join the client's `mcpServers` to the session's servers, and
`session/load` shows the conversation again, tool calls and plan included. Image blocks of a
prompt are attached as images. `session/cancel` aborts the turn. The
`agent-client-protocol` package does the JSON-RPC (a malformed message gets an error reply);
it is imported only here, under `--acp`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, cast

import acp
from acp import schema

from wave_tui import __version__
from wave_tui.acp.daemon_sessions import DaemonSessions
from wave_tui.acp.mapping import (
    plan_update,
    prompt_text,
    stream_update,
    tool_kind,
    tool_title,
)
from wave_tui.acp.mcp_servers import client_mcp_servers
from wave_tui.acp.permission import REJECT_ALWAYS, SessionPermissions
from wave_tui.acp.prompt_images import prompt_images
from wave_tui.acp.replay import replay_updates
from wave_tui.config.paths import WavePaths
from wave_tui.sdk.agent import Agent
from wave_tui.sdk.events import (
    ToolBlockUpdate,
    ToolUse,
    TurnEnd,
)


class _Session:
    """One ACP session: its agent and the tool calls of the running turn (for permissions)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        # Front ends of this package reach the session's policy: "allow always" is a grant.
        self.permissions = SessionPermissions(agent._agent().policy)
        # The client's name for it: the agent's session id at the start (a compaction moves
        # the agent to a new id; the client keeps its own).
        self.id = agent.session_id
        # The turn's running tool calls, recorded as the loop announces them (before anyone is
        # asked), and those the client was told of already.
        self.calls: dict[str, ToolUse] = {}
        self.announced: set[str] = set()
        self.cancelled = False
        # The plan the client shows (entries as sent), and whether changes of the task list go
        # to the client yet: a loaded session's list is sent by the replay, in its place.
        self.plan: list[tuple[str, str]] | None = None
        self.shown = True

    def tool_changed(self, update: ToolBlockUpdate) -> None:
        if update.stage == "running":
            self.calls[update.id] = ToolUse(update.id, update.name, update.parameters)
        else:
            self.calls.pop(update.id, None)


# req: AP1
class WaveAcpAgent:
    """The ACP `Agent` side: initialize, new / load session, prompt, cancel."""

    def __init__(self) -> None:
        self._conn: Any = None
        self._sessions: dict[str, _Session] = {}
        self._client: schema.ClientCapabilities | None = None
        self._daemon = DaemonSessions()  # `session/load` of a `wave daemon` session (DM2)

    def on_connect(self, conn: Any) -> None:
        self._conn = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: schema.ClientCapabilities | None = None,
        client_info: schema.Implementation | None = None,
        **kwargs: Any,
    ) -> schema.InitializeResponse:
        self._client = client_capabilities
        return schema.InitializeResponse(
            # The newest version both sides speak (ACP's negotiation).
            protocol_version=min(protocol_version, acp.PROTOCOL_VERSION),
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                prompt_capabilities=schema.PromptCapabilities(
                    image=True, audio=False, embedded_context=True
                ),
                mcp_capabilities=schema.McpCapabilities(http=True, sse=True),
            ),
            agent_info=schema.Implementation(name="wave", title="wave", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    # req: AP2
    # req: MA10
    async def _open(self, cwd: str, restore: str | None, mcp_servers: list[Any] | None) -> _Session:
        holder: list[_Session] = []

        async def can_use_tool(name: str, args: dict[str, Any]) -> dict[str, Any]:
            return await self._ask(holder[0], name, args)

        async def tasks_changed(tasks: list[Any]) -> None:
            if holder:
                await self._plan(holder[0], tasks)

        def tool_changed(update: ToolBlockUpdate) -> None:
            if holder:
                holder[0].tool_changed(update)

        agent = await Agent.create(
            workdir=cwd,
            restore_session_id=restore,
            can_use_tool=can_use_tool,
            # Created once they started: the first prompt has their tools, as in `wave -p`.
            mcp_servers=client_mcp_servers(mcp_servers) or None,
            callbacks={"on_tasks_change": tasks_changed, "on_tool_block_updated": tool_changed},
        )
        session = _Session(agent)
        session.shown = restore is None
        if restore is not None:
            session.id = restore  # the client goes on calling it by the id it loaded
        holder.append(session)
        self._use_client_fs(agent, session.id)
        self._sessions[session.id] = session
        return session

    # req: AP1
    def _use_client_fs(self, agent: Agent, session_id: str) -> None:
        """Read / Write through the client when it offers its file system."""
        fs = self._client.fs if self._client is not None else None
        if fs is None:
            return
        from wave_tui.acp.client_fs import ClientRead, ClientWrite

        if fs.read_text_file:
            agent._replace_tool(ClientRead(self._conn, session_id))
        if fs.write_text_file:
            agent._replace_tool(ClientWrite(self._conn, session_id))

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> schema.NewSessionResponse:
        session = await self._open(cwd, None, mcp_servers)
        return schema.NewSessionResponse(session_id=session.id)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> schema.LoadSessionResponse:
        if await self._daemon.load(self._conn, cwd, session_id):
            return schema.LoadSessionResponse()
        try:
            session = await self._open(cwd, session_id, mcp_servers)
        except FileNotFoundError as exc:
            raise acp.RequestError.invalid_params({"sessionId": str(exc)}) from exc
        # The client shows the conversation again: messages, tool calls and the plan, in order.
        tasks = await session.agent._session.tasks()
        for update in replay_updates(session.agent.messages, tasks):
            if update.session_update == "plan":
                session.plan = _entries(update)
            await self._conn.session_update(session_id=session_id, update=update)
        session.shown = True
        return schema.LoadSessionResponse()

    def _session(self, session_id: str) -> _Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise acp.RequestError.invalid_params({"sessionId": f"no session {session_id!r}"})
        return session

    async def prompt(
        self, session_id: str, prompt: list[Any], **kwargs: Any
    ) -> schema.PromptResponse:
        if self._daemon.has(session_id):
            return await self._daemon.prompt(self._conn, session_id, prompt)
        session = self._session(session_id)
        session.cancelled = False
        stop: Any = "end_turn"
        folder = WavePaths.for_workdir(session.agent.workdir).pasted_images
        images = await prompt_images(prompt, folder)
        async for event in session.agent.stream(prompt_text(prompt), images=images or None):
            if isinstance(event, ToolUse) and event.id in session.announced:
                continue  # told already, when its permission was asked
            update = self._update(session, event)
            if update is not None:
                await self._conn.session_update(session_id=session_id, update=update)
            if isinstance(event, TurnEnd):
                stop = "cancelled" if session.cancelled or event.status == "aborted" else stop
        session.calls.clear()
        session.announced.clear()
        return schema.PromptResponse(stop_reason=stop)

    def _update(self, session: _Session, event: object) -> Any:
        if isinstance(event, ToolUse):
            session.announced.add(event.id)
        return stream_update(event)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self._daemon.cancel(session_id)
        session = self._sessions.get(session_id)
        if session is not None:
            session.cancelled = True
            session.agent.abort()

    # req: AP1
    # req: MA12
    async def _ask(self, session: _Session, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """A call that needs approval, asked of the client (`session/request_permission`),
        unless the user rejected calls like it for good."""
        if session.permissions.rejected(name, args):
            return session.permissions.answer(REJECT_ALWAYS, name, args)
        call = next(
            (c for c in reversed(session.calls.values()) if c.name == name and c.input == args),
            ToolUse(f"permission-{name}", name, args),
        )
        call_id = call.id
        if call_id not in session.announced:  # the client hears of the call before the question
            await self._conn.session_update(
                session_id=session.id, update=self._update(session, call)
            )
        response = await self._conn.request_permission(
            session_id=session.id,
            tool_call=schema.ToolCallUpdate(
                tool_call_id=call_id,
                title=tool_title(name, args),
                kind=tool_kind(name),
                status="pending",
                raw_input=args,
            ),
            options=session.permissions.options(name, args),
        )
        outcome = response.outcome
        chosen = outcome.option_id if isinstance(outcome, schema.AllowedOutcome) else None
        return session.permissions.answer(chosen, name, args)

    async def _plan(self, session: _Session, tasks: list[Any]) -> None:
        """The task list as the client's plan (every change sends the whole list)."""
        update = plan_update(tasks)
        if not session.shown or _entries(update) == session.plan:
            return  # the replay of a loaded session shows it, or the client has it already
        session.plan = _entries(update)
        await self._conn.session_update(session_id=session.id, update=update)

    async def close(self) -> None:
        await self._daemon.close()
        for session in list(self._sessions.values()):
            with contextlib.suppress(Exception):
                await session.agent.destroy()
        self._sessions.clear()


def _entries(plan: Any) -> list[tuple[str, str]]:
    return [(entry.content, entry.status) for entry in plan.entries]


# The package's own limit for one message (images and embedded files make big lines).
_LINE_LIMIT = 50 * 1024 * 1024


def _error_line(code: int, message: str) -> bytes:
    reply = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    return (json.dumps(reply) + "\n").encode()


# req: AP1
async def _checked_lines(
    source: asyncio.StreamReader, target: asyncio.StreamReader, out: asyncio.StreamWriter
) -> None:
    """Pass each JSON object line on; answer a line that is not one with the JSON-RPC error
    (the package would only log it, and the client would wait for an answer forever)."""
    try:
        while line := await source.readline():
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                out.write(_error_line(-32700, "Parse error: not JSON"))
                continue
            if not isinstance(message, dict):
                out.write(_error_line(-32600, "Invalid Request: not a JSON object"))
                continue
            target.feed_data(line if line.endswith(b"\n") else line + b"\n")
    except (ValueError, ConnectionError):  # a line over the limit, or stdin broke: the end
        pass
    finally:
        target.feed_eof()


async def serve() -> int:
    """Speak ACP on stdin / stdout until stdin closes; every session is destroyed then."""
    agent = WaveAcpAgent()
    stdin, stdout = await acp.stdio_streams(limit=_LINE_LIMIT)
    checked = asyncio.StreamReader(limit=_LINE_LIMIT)
    pump = asyncio.ensure_future(_checked_lines(stdin, checked, stdout))
    try:
        # The package calls only the methods it finds; the rest answer "method not found".
        await acp.run_agent(cast("acp.Agent", agent), stdout, checked)
    except (asyncio.CancelledError, KeyboardInterrupt):
        pass
    finally:
        pump.cancel()
        with contextlib.suppress(BaseException):
            await pump
        await agent.close()
    return 0
