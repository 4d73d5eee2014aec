"""The SDK's workflow run API: `get_workflow_runs`, `get_workflow_run`, `stop_workflow_run`, on a
background run whose agents the scripted server holds."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.features.workflows.conftest import asks, child_requests, is_main, until, write_workflow
from tests.model_server import ModelServer, text, tool_calls
from wave_tui.sdk.agent import Agent

SCRIPT = """\
const out = await phase("gather", [{ description: "one", prompt: "sdk-one" }]);
return out[0].text;
"""


@pytest.mark.req("WK2")
async def test_a_program_lists_reads_and_stops_a_workflow_run(
    model_server: ModelServer,
    project: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in model_server.env(WAVE_DISABLE_AUTO_MEMORY="1").items():
        monkeypatch.setenv(key, value)
    write_workflow(isolated_home / ".wave" / "workflows", "gather", SCRIPT)
    hold = threading.Event()
    model_server.enqueue(text("ONE", hold=hold), when=asks("sdk-one"))
    model_server.enqueue(
        tool_calls([("Workflow", {"name": "gather", "run_in_background": True})]), when=is_main
    )
    model_server.enqueue(text("started"), when=is_main)
    agent = await Agent.create(workdir=str(project))
    try:
        await agent.send_message("go")
        await until(lambda: len(child_requests(model_server, "sdk-one")) == 1)
        (run,) = await agent.get_workflow_runs()
        assert (run.name, run.status, run.phase, run.background) == (
            "gather",
            "running",
            "gather",
            True,
        )
        assert run.phases[0].agents[0].status == "running"
        assert agent.get_workflow_run(run.id) == run
        assert agent.get_workflow_run("w-none") is None
        assert await agent.stop_workflow_run(run.id) is True
        stopped = agent.get_workflow_run(run.id)
        assert stopped is not None and stopped.status == "stopped"
        assert await agent.stop_workflow_run(run.id) is False  # already ended
    finally:
        hold.set()
        await agent.destroy()
