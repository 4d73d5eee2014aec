"""`wave --acp` driven over stdio by a test client (the ACP package's client side) against the
scripted model server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from acp import schema, text_block

from tests.acp.acp_client import RecordingClient, acp_env, initialized, wave_acp
from tests.model_server import ModelServer, text, tool_call


@pytest.mark.req("AP1")
@pytest.mark.req("AP2")
async def test_a_prompt_streams_tool_calls_asks_permission_and_keeps_memory(
    project: Path, model_server: ModelServer
) -> None:
    (project / "AGENTS.md").write_text("Project rule: always answer in haiku.\n")
    model_server.enqueue(
        tool_call("Write", {"file_path": "hello.txt", "content": "hi"}),
        text("Wrote the file"),
    )
    client = RecordingClient(allow=True)
    async with wave_acp(client, model_server, project) as (conn, _process):
        init = await initialized(conn)
        assert init.agent_capabilities is not None
        assert init.agent_capabilities.load_session is True
        assert init.agent_info is not None and init.agent_info.name == "wave"
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("write it")])
    assert reply.stop_reason == "end_turn"
    assert (project / "hello.txt").read_text() == "hi"
    kinds = client.kinds()
    assert kinds[0] == "tool_call" and "tool_call_update" in kinds
    start = client.updates[0][1]
    assert start.kind == "edit" and start.title.startswith("Write ")
    (asked,) = client.permissions
    assert asked.tool_call_id == start.tool_call_id  # the question names the announced call
    done = next(u for _, u in client.updates if u.session_update == "tool_call_update")
    assert done.status == "completed"
    assert client.agent_text() == "Wrote the file"
    # Memory as in the app: AGENTS.md in the transient reminder, never in the system prompt.
    first = model_server.requests[0].body["messages"]
    assert "always answer in haiku" not in json.dumps(first[0])
    assert "always answer in haiku" in json.dumps(first[1:])


@pytest.mark.req("AP1")
async def test_a_rejected_call_fails_and_the_task_list_is_the_plan(
    project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(
        tool_call("TaskCreate", {"subject": "Ship the SDK", "description": "all of it"}),
        tool_call("Bash", {"command": "touch made.txt"}),
        text("Could not run it"),
    )
    client = RecordingClient(allow=False)
    async with wave_acp(client, model_server, project) as (conn, _process):
        await initialized(conn)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("plan and run")])
    assert not (project / "made.txt").exists()
    plans = [u for _, u in client.updates if u.session_update == "plan"]
    assert plans and [(e.content, e.status) for e in plans[-1].entries] == [
        ("Ship the SDK", "pending")
    ]
    failed = [
        u
        for _, u in client.updates
        if u.session_update == "tool_call_update" and u.status == "failed"
    ]
    assert len(failed) == 1 and "rejected" in str(failed[0].raw_output)


@pytest.mark.req("AP1")
async def test_load_session_replays_and_continues(project: Path, model_server: ModelServer) -> None:
    model_server.enqueue(text("First answer"))
    client = RecordingClient()
    async with wave_acp(client, model_server, project) as (conn, _process):
        await initialized(conn)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("first question")])
    again = RecordingClient()
    model_server.enqueue(text("Second answer"))
    async with wave_acp(again, model_server, project) as (conn, _process):
        await initialized(conn)
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
        replayed = [
            (u.session_update, u.content.text)
            for _, u in again.updates
            if u.session_update.endswith("message_chunk")
        ]
        assert replayed == [
            ("user_message_chunk", "first question"),
            ("agent_message_chunk", "First answer"),
        ]
        await conn.prompt(session_id=session.session_id, prompt=[text_block("second")])
    last = json.dumps(model_server.requests[-1].body["messages"])
    assert "first question" in last and "First answer" in last


@pytest.mark.req("AP1")
async def test_cancel_stops_the_turn(project: Path, model_server: ModelServer) -> None:
    model_server.enqueue(text("a long answer that never ends", hold=threading.Event(), hold_at=3))
    client = RecordingClient()
    async with wave_acp(client, model_server, project) as (conn, _process):
        await initialized(conn)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        turn = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
        )
        await asyncio.wait_for(client.prompt_started.wait(), 30)
        await conn.cancel(session_id=session.session_id)
        reply = await asyncio.wait_for(turn, 30)
    assert reply.stop_reason == "cancelled"


def _rpc(process: subprocess.Popen[str], line: str) -> dict[str, object]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(line + "\n")
    process.stdin.flush()
    return json.loads(process.stdout.readline())


@pytest.mark.req("AP1")
def test_malformed_messages_get_errors_and_closing_stdin_ends_it(
    project: Path, model_server: ModelServer
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "wave_tui", "--acp"],
        cwd=project,
        env=acp_env(model_server),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        garbage = _rpc(process, "{this is not json")
        assert garbage["error"]["code"] == -32700  # type: ignore[index]
        not_object = _rpc(process, "[1, 2]")
        assert not_object["error"]["code"] == -32600  # type: ignore[index]
        unknown = _rpc(process, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "no/such"}))
        assert unknown["id"] == 1 and unknown["error"]["code"] == -32601  # type: ignore[index]
        bad = _rpc(
            process,
            json.dumps({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {}}),
        )
        assert bad["id"] == 2 and bad["error"]["code"] == -32602  # type: ignore[index]
        init = _rpc(
            process,
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "initialize",
                    "params": {"protocolVersion": 1, "clientCapabilities": {}},
                }
            ),
        )
        assert init["id"] == 3 and "result" in init  # still serving after the bad ones
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.stderr is not None
    assert "Traceback" not in process.stderr.read()


__all__ = ["schema"]


class EditorClient(RecordingClient):
    """A client that offers its file system: an unsaved buffer, and writes kept in memory."""

    def __init__(self, buffers: dict[str, str]) -> None:
        super().__init__(allow=True)
        self.buffers = buffers
        self.fs_calls: list[tuple[str, str]] = []

    async def read_text_file(self, path: str, session_id: str, **kw: object) -> object:
        self.fs_calls.append(("read", path))
        return schema.ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, content: str, path: str, session_id: str, **kw: object) -> None:
        self.fs_calls.append(("write", path))
        self.buffers[path] = content


@pytest.mark.req("AP1")
@pytest.mark.req("AP2")
async def test_read_and_write_go_through_the_clients_file_system(
    project: Path, model_server: ModelServer
) -> None:
    (project / "pkg").mkdir()
    (project / "pkg" / "AGENTS.md").write_text("Nested memory: pkg uses tabs.\n")
    on_disk = project / "pkg" / "mod.py"
    on_disk.write_text("saved = 1\n")
    client = EditorClient({str(on_disk): "unsaved = 2\n"})
    model_server.enqueue(
        tool_call("Read", {"file_path": "pkg/mod.py"}),
        tool_call("Write", {"file_path": "pkg/mod.py", "content": "written = 3\n"}),
        text("Done"),
    )
    async with wave_acp(client, model_server, project) as (conn, _process):
        await conn.initialize(
            protocol_version=1,
            client_capabilities=schema.ClientCapabilities(
                fs=schema.FileSystemCapabilities(read_text_file=True, write_text_file=True)
            ),
        )
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("edit it")])
    assert client.fs_calls == [("read", str(on_disk)), ("write", str(on_disk))]
    assert client.buffers[str(on_disk)] == "written = 3\n"
    assert on_disk.read_text() == "saved = 1\n"  # the editor decides when to save
    after_read = json.dumps(model_server.requests[1].body["messages"])
    assert "unsaved = 2" in after_read and "saved = 1" not in after_read
    assert "pkg uses tabs" in after_read  # the Read still loaded the nested AGENTS.md
