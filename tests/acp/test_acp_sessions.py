"""`wave --acp` in full: the client's MCP servers, `session/load` replaying tool calls and the
plan, the "always" permission options and image prompts (MA10–MA12), driven over stdio by the
ACP package's own client against the scripted model server."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, image_block, schema, text_block

from tests import image_files as img
from tests.acp.acp_client import RecordingClient, initialized, wave_acp
from tests.features.mcp.everything import everything_entry
from tests.model_server import ModelServer, text, tool_call
from tests.wire_view import tool_messages

DEMO_SERVER = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """No extraction fork takes the scripted replies meant for the turn."""
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


class ChoosingClient(RecordingClient):
    """Answers each permission question with the next option kind of `choices`, and keeps the
    options it was offered."""

    def __init__(self, choices: list[str]) -> None:
        super().__init__()
        self.choices = choices
        self.offered: list[list[schema.PermissionOption]] = []

    async def request_permission(
        self, options: list[schema.PermissionOption], session_id: str, tool_call: Any, **kw: Any
    ) -> schema.RequestPermissionResponse:
        self.permissions.append(tool_call)
        self.offered.append(options)
        kind = self.choices.pop(0)
        chosen = next(o for o in options if o.kind == kind)
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(option_id=chosen.option_id, outcome="selected")
        )


@pytest.mark.req("MA10")
async def test_the_clients_stdio_mcp_servers_join_the_session_and_win_a_name_clash(
    project: Path, model_server: ModelServer, isolated_home: Path
) -> None:
    # The user's own settings have a "demo" that cannot start: the client's "demo" wins.
    (isolated_home / ".wave").mkdir()
    (isolated_home / ".wave" / "settings.json").write_text(
        json.dumps({"mcpServers": {"demo": {"command": str(project / "no-such-server")}}})
    )
    model_server.enqueue(
        tool_call("mcp__demo__echo", {"text": "from the editor"}),
        tool_call("mcp__My-tools__env", {"name": "ACP_GIVEN"}),
        text("Both answered"),
    )
    demo = schema.McpServerStdio(
        name="demo", command=sys.executable, args=[str(DEMO_SERVER)], env=[]
    )
    spaced = schema.McpServerStdio(
        name="My tools",  # not a usable tool prefix: becomes My-tools
        command=sys.executable,
        args=[str(DEMO_SERVER)],
        env=[schema.EnvVariable(name="ACP_GIVEN", value="yes")],
    )
    client = RecordingClient(allow=True)
    async with wave_acp(client, model_server, project) as (conn, _process):
        init = await initialized(conn)
        assert init.agent_capabilities is not None
        mcp = init.agent_capabilities.mcp_capabilities
        assert mcp is not None and mcp.http and mcp.sse
        session = await conn.new_session(cwd=str(project), mcp_servers=[demo, spaced])
        # The first request already offers the servers' tools (created once they started).
        await conn.prompt(session_id=session.session_id, prompt=[text_block("use the tools")])
    # Both servers' tools reach the model (through Exec's catalog, MCP tools being connected).
    first = model_server.requests[0].body
    assert "Exec" in {t["function"]["name"] for t in first["tools"]}
    catalog = json.dumps(first["messages"])
    assert "mcp__demo__echo" in catalog and "mcp__My-tools__env" in catalog
    assert "echo: from the editor" in json.dumps(tool_messages(model_server.requests[1].body))
    env_result = json.dumps(tool_messages(model_server.requests[2].body)[-1])
    assert "yes" in env_result and "<unset>" not in env_result
    assert client.agent_text() == "Both answered"


@pytest.mark.req("MA10")
async def test_load_session_connects_the_clients_servers_too(
    project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(text("First answer"))
    client = RecordingClient()
    async with wave_acp(client, model_server, project) as (conn, _process):
        await initialized(conn)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("first")])
    model_server.enqueue(tool_call("mcp__demo__echo", {"text": "again"}), text("Done"))
    demo = schema.McpServerStdio(
        name="demo", command=sys.executable, args=[str(DEMO_SERVER)], env=[]
    )
    again = RecordingClient(allow=True)
    async with wave_acp(again, model_server, project) as (conn, _process):
        await initialized(conn)
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[demo])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("echo")])
    assert "echo: again" in json.dumps(tool_messages(model_server.requests[-1].body))


def _replayed(client: RecordingClient) -> list[tuple[str, str]]:
    """Each update as (kind, what it says): text, tool title / status, plan entries."""
    shown: list[tuple[str, str]] = []
    for _, u in client.updates:
        kind = u.session_update
        if kind.endswith("message_chunk"):
            shown.append((kind, u.content.text))
        elif kind == "tool_call":
            shown.append((kind, u.title))
        elif kind == "tool_call_update":
            shown.append((kind, u.status))
        elif kind == "plan":
            shown.append((kind, ", ".join(f"{e.content}:{e.status}" for e in u.entries)))
    return shown


@pytest.mark.req("MA11")
async def test_load_session_replays_tool_calls_and_the_plan_in_order(
    project: Path, model_server: ModelServer
) -> None:
    (project / "notes.txt").write_text("the notes\n")
    model_server.enqueue(
        tool_call("TaskCreate", {"subject": "Read the notes", "description": "all"}),
        tool_call("Read", {"file_path": "notes.txt"}),
        tool_call("Read", {"file_path": "missing.txt"}),
        text("Read them"),
    )
    client = RecordingClient()
    async with wave_acp(client, model_server, project) as (conn, _process):
        await initialized(conn)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("read the notes")])
    live = [u for _, u in client.updates if u.session_update == "tool_call_update"]
    again = RecordingClient()
    async with wave_acp(again, model_server, project) as (conn, _process):
        await initialized(conn)
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
    assert _replayed(again) == [
        ("user_message_chunk", "read the notes"),
        ("tool_call", "TaskCreate Read the notes"),
        ("tool_call_update", "completed"),
        ("plan", "Read the notes:pending"),
        ("tool_call", "Read notes.txt"),
        ("tool_call_update", "completed"),
        ("tool_call", "Read missing.txt"),
        ("tool_call_update", "failed"),
        ("agent_message_chunk", "Read them"),
    ]
    # The same ids and results as the live turn showed.
    replayed = [u for _, u in again.updates if u.session_update == "tool_call_update"]
    assert [(u.tool_call_id, u.raw_output) for u in replayed] == [
        (u.tool_call_id, u.raw_output) for u in live
    ]
    assert "the notes" in replayed[1].content[0].content.text


@pytest.mark.req("MA12")
async def test_allow_always_grants_the_prefix_rule_and_reject_always_holds(
    project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(
        tool_call("Bash", {"command": "touch one.txt"}),
        tool_call("Bash", {"command": "touch two.txt"}),  # the grant covers it: not asked
        tool_call("Bash", {"command": "mkdir first"}),
        tool_call("Bash", {"command": "mkdir second"}),  # rejected for good: not asked
        tool_call("Bash", {"command": "rm one.txt"}),
        tool_call("Bash", {"command": "rm two.txt"}),  # destructive: granted exactly, asked
        text("Done"),
    )
    client = ChoosingClient(["allow_always", "reject_always", "allow_always", "reject_once"])
    async with wave_acp(client, model_server, project) as (conn, _process):
        await initialized(conn)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("work")])
    asked = [p.raw_input["command"] for p in client.permissions]
    assert asked == ["touch one.txt", "mkdir first", "rm one.txt", "rm two.txt"]
    kinds = [o.kind for o in client.offered[0]]
    assert kinds == ["allow_once", "allow_always", "reject_once", "reject_always"]
    names = {o.kind: o.name for o in client.offered[0]}
    assert "Bash(touch:*)" in names["allow_always"] and "Bash(touch:*)" in names["reject_always"]
    assert not (project / "one.txt").exists()  # rm one.txt ran
    assert (project / "two.txt").exists()  # rm two.txt was asked and rejected
    assert not (project / "first").exists() and not (project / "second").exists()
    second_mkdir = json.dumps(tool_messages(model_server.requests[4].body)[-1])
    assert "rejected" in second_mkdir


@pytest.mark.req("MA12")
async def test_an_image_block_is_attached_as_an_image(
    project: Path, model_server: ModelServer, tmp_path: Path, isolated_home: Path
) -> None:
    picture = img.png(tmp_path / "drop.png", (40, 30))
    data = base64.b64encode(picture.read_bytes()).decode()
    model_server.enqueue(text("A red picture"))
    client = RecordingClient()
    async with wave_acp(client, model_server, project) as (conn, _process):
        init = await initialized(conn)
        assert init.agent_capabilities is not None
        prompt_caps = init.agent_capabilities.prompt_capabilities
        assert prompt_caps is not None and prompt_caps.image is True
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        reply = await conn.prompt(
            session_id=session.session_id,
            prompt=[text_block("what is this?"), image_block(data, "image/png")],
        )
        # A type wave cannot read is the request's error, and the session goes on.
        with pytest.raises(RequestError) as refused:
            await conn.prompt(
                session_id=session.session_id,
                prompt=[text_block("and this?"), image_block(data, "image/x-bmp")],
            )
        assert refused.value.code == -32602 and "image/x-bmp" in json.dumps(refused.value.data)
    assert reply.stop_reason == "end_turn"
    assert len(model_server.requests) == 1  # the refused prompt reached no model
    (saved,) = (isolated_home / ".wave" / "pasted-images").glob("acp-*.png")
    assert saved.read_bytes() == picture.read_bytes()  # where the app keeps pasted images
    (url,) = img.all_image_urls(model_server.requests[0].body)
    kind, _raw, image = img.decode(url)
    assert kind == "image/png" and image.size == (40, 30)


@pytest.mark.req("MA4")
async def test_a_tools_progress_reaches_the_client_as_updates_of_its_call(
    project: Path, model_server: ModelServer
) -> None:
    """server-everything's long operation reports progress: each line is an in-progress update
    of that very call, before the call's result."""
    name = "mcp__ev__trigger-long-running-operation"
    model_server.enqueue(tool_call(name, {"duration": 0.2, "steps": 2}), text("Done"))
    entry = everything_entry()
    ev_server = schema.McpServerStdio(
        name="ev", command=entry["command"], args=entry["args"], env=[]
    )
    client = RecordingClient(allow=True)
    async with wave_acp(client, model_server, project) as (conn, _process):
        await initialized(conn)
        session = await conn.new_session(cwd=str(project), mcp_servers=[ev_server])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    calls = [u for _, u in client.updates if u.session_update in ("tool_call", "tool_call_update")]
    started = next(u for u in calls if u.session_update == "tool_call")
    progress = [
        u.content[0].content.text
        for u in calls
        if u.session_update == "tool_call_update" and u.status == "in_progress"
    ]
    assert [line.split(" ")[0] for line in progress] == ["1/2", "2/2"]
    assert {u.tool_call_id for u in calls} == {started.tool_call_id}
    assert calls[-1].status == "completed"
    assert client.agent_text() == "Done"
