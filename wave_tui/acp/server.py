"""`wave --acp`: wave as an Agent Client Protocol agent on stdio, one SDK `Agent` per session.

Each ACP session is an `Agent` (the SDK's public surface, so the session facade the app uses:
AGENTS.md, rules, auto memory and its extraction fork behave exactly as in the app).
`session/prompt` streams the turn as `session/update` notifications — message and thought
chunks, tool calls and their updates, the task list as a `plan` — and a call that needs
approval becomes `session/request_permission`. `session/cancel` aborts the turn. The
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
from wave_tui.acp.mapping import prompt_text, tool_kind, tool_title
from wave_tui.sdk.agent import Agent
from wave_tui.sdk.events import (
    ReasoningChunk,
    TextChunk,
    ToolBlockUpdate,
    ToolResult,
    ToolUse,
    TurnEnd,
)

_ALLOW = "allow"
_REJECT = "reject"


class _Session:
    """One ACP session: its agent and the tool calls of the running turn (for permissions)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        # The client's name for it: the agent's session id at the start (a compaction moves
        # the agent to a new id; the client keeps its own).
        self.id = agent.session_id
        # The turn's running tool calls, recorded as the loop announces them (before anyone is
        # asked), and those the client was told of already.
        self.calls: dict[str, ToolUse] = {}
        self.announced: set[str] = set()
        self.cancelled = False

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
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                prompt_capabilities=schema.PromptCapabilities(
                    image=False, audio=False, embedded_context=True
                ),
            ),
            agent_info=schema.Implementation(name="wave", title="wave", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    # req: AP2
    async def _open(self, cwd: str, restore: str | None) -> _Session:
        holder: list[_Session] = []

        async def can_use_tool(name: str, args: dict[str, Any]) -> dict[str, Any]:
            return await self._ask(holder[0], name, args)

        async def tasks_changed(tasks: list[Any]) -> None:
            await self._plan(holder[0], tasks)

        def tool_changed(update: ToolBlockUpdate) -> None:
            holder[0].tool_changed(update)

        agent = await Agent.create(
            workdir=cwd,
            restore_session_id=restore,
            can_use_tool=can_use_tool,
            callbacks={"on_tasks_change": tasks_changed, "on_tool_block_updated": tool_changed},
        )
        session = _Session(agent)
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
        session = await self._open(cwd, None)
        return schema.NewSessionResponse(session_id=session.id)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> schema.LoadSessionResponse:
        try:
            session = await self._open(cwd, session_id)
        except FileNotFoundError as exc:
            raise acp.RequestError.invalid_params({"sessionId": str(exc)}) from exc
        # The client shows the conversation again: its messages as they were.
        for message in session.agent.messages:
            if message.is_meta or not message.content:
                continue
            if message.role == "user":
                update: Any = acp.update_user_message_text(message.content)
            elif message.role == "assistant":
                update = acp.update_agent_message_text(message.content)
            else:
                continue
            await self._conn.session_update(session_id=session_id, update=update)
        return schema.LoadSessionResponse()

    def _session(self, session_id: str) -> _Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise acp.RequestError.invalid_params({"sessionId": f"no session {session_id!r}"})
        return session

    async def prompt(
        self, session_id: str, prompt: list[Any], **kwargs: Any
    ) -> schema.PromptResponse:
        session = self._session(session_id)
        session.cancelled = False
        stop: Any = "end_turn"
        async for event in session.agent.stream(prompt_text(prompt)):
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
        if isinstance(event, TextChunk):
            return acp.update_agent_message_text(event.text)
        if isinstance(event, ReasoningChunk):
            return acp.update_agent_thought_text(event.text)
        if isinstance(event, ToolUse):
            session.announced.add(event.id)
            return acp.start_tool_call(
                event.id,
                tool_title(event.name, event.input),
                kind=tool_kind(event.name),
                status="in_progress",
                raw_input=event.input,
            )
        if isinstance(event, ToolResult):
            return acp.update_tool_call(
                event.id,
                status="failed" if event.is_error else "completed",
                content=[acp.tool_content(acp.text_block(event.content))],
                raw_output=event.content,
            )
        return None

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session is not None:
            session.cancelled = True
            session.agent.abort()

    # req: AP1
    async def _ask(self, session: _Session, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """A call that needs approval, asked of the client (`session/request_permission`)."""
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
            options=[
                schema.PermissionOption(option_id=_ALLOW, name="Allow", kind="allow_once"),
                schema.PermissionOption(option_id=_REJECT, name="Reject", kind="reject_once"),
            ],
        )
        outcome = response.outcome
        if isinstance(outcome, schema.AllowedOutcome) and outcome.option_id == _ALLOW:
            return {"behavior": "allow"}
        return {"behavior": "deny", "message": "the user rejected this call in the client"}

    async def _plan(self, session: _Session, tasks: list[Any]) -> None:
        """The task list as the client's plan (every change sends the whole list)."""
        entries = [
            acp.plan_entry(task.subject, status=task.status)
            for task in tasks
            if task.status in ("pending", "in_progress", "completed")
        ]
        await self._conn.session_update(session_id=session.id, update=acp.update_plan(entries))

    async def close(self) -> None:
        for session in list(self._sessions.values()):
            with contextlib.suppress(Exception):
                await session.agent.destroy()
        self._sessions.clear()


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
