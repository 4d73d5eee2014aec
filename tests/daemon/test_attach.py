"""Attaching to a daemon session (DM2): the attach stream gives the conversation so far and the
reply streaming now, then every event, so nothing generated around the attach is lost or
repeated; detaching leaves the session (and its turn) running; an unknown id is one line."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import pytest

from tests.daemon.conftest import Daemon, daemon_paths
from tests.model_server import text, tool_call
from tests.wave_cli import run_wave

pytestmark = pytest.mark.req("DM2")

REPLY = "alpha beta gamma delta epsilon zeta eta theta"


class Attached:
    """A raw attached client: the answer line, then the stream's lines as they come."""

    def __init__(self, session: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(daemon_paths().daemon_socket))
        self.lines = self.sock.makefile("rb")
        self.sock.sendall(json.dumps({"op": "attach", "id": session}).encode() + b"\n")
        self.hello = self.next()

    def next(self) -> dict[str, Any]:
        line = self.lines.readline()
        assert line, "the daemon closed the stream"
        value: dict[str, Any] = json.loads(line)
        return value

    def until(self, test: Any) -> list[dict[str, Any]]:
        """The lines up to and including the first that passes `test`."""
        seen = [self.next()]
        while not test(seen[-1]):
            seen.append(self.next())
        return seen

    def close(self) -> None:
        self.lines.close()
        self.sock.close()


def _deltas(lines: list[dict[str, Any]]) -> str:
    return "".join(line["fields"]["text"] for line in lines if line.get("event") == "TextDelta")


def test_attach_mid_turn_gets_every_chunk_once_and_detaching_leaves_the_turn(
    daemon: Daemon,
) -> None:
    release = threading.Event()
    daemon.server.enqueue(text(REPLY, hold=release, hold_at=3))
    session = daemon.create()
    daemon.ok("send", session, "the greek letters")
    daemon.wait_for(session, "the reply to start", lambda s: s["state"] == "busy")
    wait_partial(daemon, session)

    client = Attached(session)
    assert client.hello["ok"] is True
    shown = [(m["role"], m["content"]) for m in client.hello["transcript"]]
    assert ("user", "the greek letters") in shown
    partial = client.hello["partial"]
    assert partial["text"] and REPLY.startswith(partial["text"]) and partial["text"] != REPLY
    assert client.hello["news"]["state"] == "busy"
    # Two clients at once: the CLI sees the attached one, and the session busy.
    assert daemon.status(session)["attached"] == 1
    assert daemon.status(session)["state"] == "busy"

    release.set()
    streamed = client.until(lambda line: line.get("event") == "AssistantFinished")
    assert partial["text"] + _deltas(streamed) == REPLY  # nothing lost, nothing twice
    finished = streamed[-1]["fields"]["message"]
    assert finished["id"] == partial["id"] and finished["content"] == REPLY
    client.until(lambda line: line.get("news") == "state" and line["state"] == "idle")
    client.close()
    daemon.wait_for(session, "the client to detach", lambda s: s["attached"] == 0)
    assert daemon.status(session)["state"] == "idle"


def test_detaching_mid_turn_leaves_the_session_busy_and_its_turn_finishes(
    daemon: Daemon,
) -> None:
    release = threading.Event()
    daemon.server.enqueue(text(REPLY, hold=release, hold_at=3))
    session = daemon.create()
    daemon.ok("send", session, "the greek letters")
    wait_partial(daemon, session)
    client = Attached(session)
    client.close()
    daemon.wait_for(session, "the client to detach", lambda s: s["attached"] == 0)
    assert daemon.status(session)["state"] == "busy"  # not destroyed, not stopped
    release.set()
    waited = daemon.run("wait", session, "--lines", "1")
    assert waited.returncode == 0
    assert waited.stdout.splitlines()[1] == f"[assistant] {REPLY}"


def test_an_attached_client_hears_the_session_destroyed(daemon: Daemon) -> None:
    session = daemon.create()
    client = Attached(session)
    daemon.ok("destroy", session)
    last = client.until(lambda line: bool(line.get("destroyed")))
    assert last[-1]["news"] == "state"
    client.close()


def test_attach_to_an_unknown_session_is_one_line_and_exit_1(daemon: Daemon) -> None:
    daemon.create()  # a daemon runs, without that session
    done = run_wave("--attach", "nosuchid", cwd=daemon.project, server=daemon.server)
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["wave: no daemon session 'nosuchid' (wave daemon list)"]
    client = Attached("nosuchid")
    assert client.hello == {"ok": False, "error": "no daemon session 'nosuchid' (wave daemon list)"}
    client.close()


def wait_partial(daemon: Daemon, session: str) -> None:
    """Until part of the reply was generated (the server holds the rest)."""
    from tests.daemon.conftest import wait_until

    wait_until(
        lambda: "(generating)" in daemon.ok("status", session, "--lines", "1"),
        "part of the reply",
    )


async def test_a_program_attaches_sends_streams_answers_and_detaches(
    daemon: Daemon,
) -> None:
    from wave_tui import Agent
    from wave_tui.sdk.events import TextChunk, TurnEnd

    daemon.server.enqueue(text("the first answer"))
    session = daemon.create()
    daemon.ok("send", session, "first question", "--wait")
    asked: list[str] = []

    def can_use_tool(tool: str, args: dict[str, Any]) -> dict[str, Any]:
        asked.append(tool)
        return {"behavior": "allow"}

    agent = await Agent.attach(session, workdir=daemon.project, can_use_tool=can_use_tool)
    async with agent:
        assert [m.content for m in agent.messages if m.role == "assistant"] == ["the first answer"]
        daemon.server.enqueue(tool_call("Write", {"file_path": "notes.txt", "content": "hi\n"}))
        daemon.server.enqueue(text("written"))
        ended = await agent.send_message("write the notes")
        assert ended == TurnEnd("completed", "written")
        assert asked == ["Write"]  # the daemon's question, answered by the program
        assert (daemon.project / "notes.txt").read_text() == "hi\n"

        daemon.server.enqueue(text(REPLY))
        events = [event async for event in agent.stream("the greek letters")]
        assert "".join(e.text for e in events if isinstance(e, TextChunk)) == REPLY
        assert events[-1] == TurnEnd("completed", REPLY)
        assert daemon.status(session)["attached"] == 1
    daemon.wait_for(session, "the program to detach", lambda s: s["attached"] == 0)
    assert daemon.status(session)["state"] == "idle"


async def test_a_program_attaching_an_unknown_session_gets_one_line(daemon: Daemon) -> None:
    from wave_tui import Agent
    from wave_tui.session.daemon.remote import AttachError

    daemon.create()
    with pytest.raises(AttachError, match=r"^no daemon session 'nosuchid' \(wave daemon list\)$"):
        await Agent.attach("nosuchid", workdir=daemon.project)


async def test_an_acp_client_loads_a_daemon_session_prompts_it_and_detaches(
    daemon: Daemon,
) -> None:
    from acp import text_block

    from tests.acp.acp_client import RecordingClient, initialized, wave_acp

    daemon.server.enqueue(text("the first answer"))
    session = daemon.create()
    daemon.ok("send", session, "first question", "--wait")
    client = RecordingClient(allow=True)
    async with wave_acp(client, daemon.server, daemon.project) as (conn, _process):
        await initialized(conn)
        await conn.load_session(cwd=str(daemon.project), session_id=session, mcp_servers=[])
        assert client.agent_text() == "the first answer"  # the conversation, replayed
        daemon.server.enqueue(tool_call("Write", {"file_path": "notes.txt", "content": "hi\n"}))
        daemon.server.enqueue(text("written"))
        answer = await conn.prompt(session_id=session, prompt=[text_block("write the notes")])
        assert answer.stop_reason == "end_turn"
        assert client.agent_text() == "the first answerwritten"
        assert [p.raw_input["file_path"] for p in client.permissions] == ["notes.txt"]
        assert "tool_call" in client.kinds()
    assert (daemon.project / "notes.txt").read_text() == "hi\n"
    daemon.wait_for(session, "the client to detach", lambda s: s["attached"] == 0)
    assert daemon.status(session)["state"] == "idle"  # still the daemon's
    shown = daemon.ok("status", session, "--lines", "2").splitlines()[1:]
    assert shown == ["[user] write the notes", "[assistant] written"]
