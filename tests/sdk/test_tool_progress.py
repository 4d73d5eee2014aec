"""A running MCP tool's progress reaches an SDK program: `on_tool_block_updated` ("running",
with the line) and `stream()` (`ToolProgressUpdate`), each naming the model's call."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.features.mcp.everything import everything_entry
from tests.model_server import ModelServer, text, tool_call
from wave_tui import Agent, ToolBlockUpdate, ToolProgressUpdate, ToolUse

NAME = "mcp__ev__trigger-long-running-operation"


@pytest.fixture(autouse=True)
def no_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.mark.req("MA4")
async def test_progress_reaches_the_callback_and_the_stream_on_the_call(
    project: Path, model_server: ModelServer
) -> None:
    args = {"duration": 0.2, "steps": 2}
    model_server.enqueue(tool_call(NAME, args), text("one"), tool_call(NAME, args), text("two"))
    blocks: list[ToolBlockUpdate] = []
    agent = await Agent.create(
        workdir=project,
        base_url=model_server.base_url,
        api_key="k",
        model="m",
        permission_mode="bypassPermissions",
        mcp_servers={"ev": everything_entry()},
        callbacks={"on_tool_block_updated": blocks.append},
    )
    async with agent:
        await agent.send_message("run it")
        events = [e async for e in agent.stream("again")]
    progress = [b for b in blocks if b.progress]
    assert [(b.name, b.stage, b.progress.split(" ")[0]) for b in progress[:2]] == [
        (NAME, "running", "1/2"),
        (NAME, "running", "2/2"),
    ]
    assert {b.id for b in blocks[:4]} == {blocks[0].id}  # start, two lines, end: one call
    used = next(e for e in events if isinstance(e, ToolUse))
    lines = [e for e in events if isinstance(e, ToolProgressUpdate)]
    assert [(e.id, e.text.split(" ")[0]) for e in lines] == [(used.id, "1/2"), (used.id, "2/2")]
