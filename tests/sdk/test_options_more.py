"""004 §2's options beyond the first round's: `tools`, `messages`, `stream`, `logger`, `name`
(the worktree) — in-process against the scripted server, through the requests they shape."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wire_view import tool_names
from wave_tui import Agent, ContentUpdate, Message, TextChunk


@pytest.fixture(autouse=True)
def no_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


async def make_agent(project: Path, server: ModelServer, **options: Any) -> Agent:
    return await Agent.create(
        workdir=project, base_url=server.base_url, api_key="k", model="m", **options
    )


async def test_tools_chooses_the_tools_offered(project: Path, model_server: ModelServer) -> None:
    for tools, expected in ((["Read", "Grep"], ["Read", "Grep"]), ([], [])):
        agent = await make_agent(project, model_server, tools=tools)
        try:
            await agent.send_message("hi")
            assert sorted(tool_names(model_server.requests[-1].body)) == sorted(expected)
            assert sorted(agent.get_available_tool_names()) == sorted(expected)
        finally:
            await agent.destroy()
    agent = await make_agent(project, model_server)
    try:
        await agent.send_message("hi")
        assert {"Read", "Grep", "Bash", "Write", "Edit"} <= set(
            tool_names(model_server.requests[-1].body)
        )
    finally:
        await agent.destroy()


async def test_a_tool_not_offered_is_not_run(project: Path, model_server: ModelServer) -> None:
    model_server.enqueue(tool_call("Write", {"file_path": "x.txt", "content": "x"}), text("no"))
    agent = await make_agent(project, model_server, tools=["Read"], permission_mode="acceptEdits")
    try:
        await agent.send_message("write x")
        assert not (project / "x.txt").exists()
    finally:
        await agent.destroy()


async def test_messages_start_the_conversation(project: Path, model_server: ModelServer) -> None:
    earlier = [Message.user("What is 2+2?"), {"role": "assistant", "content": "4"}]
    agent = await make_agent(project, model_server, messages=earlier)
    try:
        assert [(m.role, m.content) for m in agent.messages] == [
            ("user", "What is 2+2?"),
            ("assistant", "4"),
        ]
        await agent.send_message("And 3+3?")
        sent = [(m["role"], m["content"]) for m in model_server.requests[-1].body["messages"]]
        assert sent.index(("user", "What is 2+2?")) < sent.index(("assistant", "4"))
        assert sent.index(("assistant", "4")) < sent.index(("user", "And 3+3?"))
        assert '"What is 2+2?"' in agent.session_file_path.read_text()
    finally:
        await agent.destroy()
    with pytest.raises(ValueError, match="'messages'"):
        await make_agent(project, model_server, messages=earlier, continue_last_session=True)
    with pytest.raises(ValueError, match="not a message"):
        await make_agent(project, model_server, messages=[{"role": "nobody"}])
    with pytest.raises(TypeError, match="'messages'"):
        await make_agent(project, model_server, messages="hi")


@pytest.mark.parametrize("stream", [True, False])
async def test_stream_false_gives_whole_replies(
    project: Path, model_server: ModelServer, stream: bool
) -> None:
    updates: list[ContentUpdate] = []
    model_server.enqueue(text("one two three"), text("four five six"))
    agent = await make_agent(
        project,
        model_server,
        stream=stream,
        callbacks={"on_assistant_content_updated": updates.append},
    )
    try:
        await agent.send_message("count")
        chunks = [u.chunk for u in updates if u.stage == "streaming"]
        assert "".join(chunks) == "one two three" and updates[-1].stage == "end"
        assert (len(chunks) == 1) is not stream
        pieces = [e.text async for e in agent.stream("more") if isinstance(e, TextChunk)]
        assert "".join(pieces) == "four five six"
        assert (len(pieces) == 1) is not stream
    finally:
        await agent.destroy()


async def test_logger_gets_notices_and_failures(
    project: Path, model_server: ModelServer, capsys: pytest.CaptureFixture[str]
) -> None:
    records: list[logging.LogRecord] = []
    logger = logging.getLogger("test-sdk-logger")
    logger.setLevel(logging.INFO)
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger.addHandler(handler)

    def broken(update: object) -> None:
        raise RuntimeError("printer broke")

    def can_use_tool(name: str, args: dict[str, Any]) -> dict[str, str]:
        raise RuntimeError("judge broke")

    model_server.enqueue(tool_call("Write", {"file_path": "x.txt", "content": "x"}), text("ok"))
    agent = await make_agent(
        project,
        model_server,
        logger=logger,
        can_use_tool=can_use_tool,
        callbacks={"on_assistant_content_updated": broken},
    )
    try:
        await agent.send_message("write")
        await agent.clear_messages()  # a notice: the new conversation
    finally:
        await agent.destroy()
        logger.removeHandler(handler)
    lines = [(r.levelno, r.getMessage()) for r in records]
    assert any(lvl == logging.WARNING and "printer broke" in m for lvl, m in lines), lines
    assert any(lvl == logging.WARNING and "judge broke" in m for lvl, m in lines), lines
    assert any(lvl == logging.INFO and "new conversation" in m for lvl, m in lines), lines
    assert capsys.readouterr().err == ""  # all of it went to the logger
    with pytest.raises(TypeError, match="'logger'"):
        await make_agent(project, model_server, logger=print)


async def test_name_works_in_a_worktree(project: Path, model_server: ModelServer) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)

    git("init", "-q")
    (project / "README").write_text("x\n")
    git("add", "README")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    agent = await make_agent(project, model_server, name="feature-x", is_new_worktree=True)
    try:
        tree = project / ".wave" / "worktrees" / "feature-x"
        assert agent.working_directory == tree
        assert (tree / "README").is_file()
        result = await agent.bang("git rev-parse --abbrev-ref HEAD")
        assert result.status == "completed"
        assert any("feature-x" in m.content for m in agent.messages)
    finally:
        await agent.destroy()
    with pytest.raises(ValueError, match="option 'name'"):
        await make_agent(project, model_server, name="../out")
