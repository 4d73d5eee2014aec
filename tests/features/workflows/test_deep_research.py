"""The built-in deep-research workflow and skill (004 §12) against the scripted model server and a
local SearXNG-compatible search server: its five phases and their agents, WebSearch allowed for
the run with one question, the skeptics' votes deciding what the report hears of, and the skill
that runs it and writes the report into the project."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.features.workflows.conftest import (
    child_requests,
    is_main,
    write_settings,
)
from tests.model_server import ModelServer, Reply, text, tool_call
from tests.search_server import SearchServer, serving
from tests.wire_view import is_child, main_chats, tool_results
from wave_tui.agent.service import AgentService
from wave_tui.permissions.policy import PermissionReply
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.types import AgentOptions

DIMENSIONS = ["history", "mechanics", "news", "critics", "uses"]


@pytest.fixture
def search_server() -> Iterator[SearchServer]:
    with serving() as server:
        yield server


def last_text(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"][-1])


def first_prompt(body: dict[str, Any]) -> str:
    return next(str(m["content"]) for m in body["messages"] if m["role"] == "user")


class Researchers:
    """Answers each subagent by the phase its prompt names."""

    def __init__(self) -> None:
        self.skeptics = 0
        self.lock = threading.Lock()
        self.synthesis_prompt = ""

    def __call__(self, body: dict[str, Any]) -> Reply | None:
        if not is_child(body):
            return None
        prompt = first_prompt(body)
        if "[deep-research:scope]" in prompt:
            return text(json.dumps(DIMENSIONS))
        if "[deep-research:search]" in prompt:
            dimension = prompt.split("Dimension: ")[1].split("\\n")[0].split("\n")[0]
            if body["messages"][-1]["role"] != "tool":
                return tool_call("WebSearch", {"query": f"wave {dimension}"})
            urls = [f"https://src.example/{dimension}", "https://src.example/shared"]
            return text(json.dumps({"findings": [dimension], "urls": urls}))
        if "[deep-research:fetch]" in prompt:
            url = prompt.split("Source: ")[1].split("\n")[0]
            return text(json.dumps({"claims": [{"claim": f"claim of {url}", "source": url}]}))
        if "[deep-research:verify]" in prompt:
            with self.lock:
                self.skeptics += 1
                first = self.skeptics == 1
            # Every skeptic refutes claim 1; only the first refutes claim 2 as well.
            return text(json.dumps({"refuted": [1, 2] if first else [1]}))
        if "[deep-research:synthesize]" in prompt:
            self.synthesis_prompt = prompt
            return text("# Report\n## Executive summary\nWaves are real.")
        return None


@pytest.mark.req("WK4")
async def test_deep_research_runs_its_five_phases_and_asks_for_the_web_once(
    model_server: ModelServer,
    search_server: SearchServer,
    isolated_home: Path,
    project: Path,
) -> None:
    write_settings(isolated_home, webSearch={"provider": "searxng", "url": search_server.url})
    researchers = Researchers()
    model_server.responder = researchers
    question = {"question": "How do waves work?"}
    report = "# Report\n## Executive summary\nWaves are real.\n"
    # The model follows the skill: the workflow, then the report into the project, then a
    # summary.
    model_server.enqueue(tool_call("Skill", {"skill": "deep-research"}), when=is_main)
    model_server.enqueue(
        tool_call("Workflow", {"name": "deep-research", "args": question}), when=is_main
    )
    model_server.enqueue(
        tool_call("Write", {"file_path": str(project / "research/waves.md"), "content": report}),
        when=is_main,
    )
    model_server.enqueue(text("Report in research/waves.md: waves are real."), when=is_main)
    service, questions = build(model_server, project)  # after the settings: WebSearch is on
    try:
        await service.run_turn("research how waves work")
    finally:
        await service.destroy()
    skill = tool_results(main_chats(model_server)[1])[-1]
    assert "`name` `deep-research`" in skill and "research/<short-kebab-case-topic>.md" in skill
    assert (project / "research" / "waves.md").read_text() == report
    result = tool_results(main_chats(model_server)[2])[-1]
    assert "Workflow deep-research" in result and "completed" in result, result
    assert "# Report" in result
    # One question for the whole run, though five agents searched the web.
    assert questions[0] == ("Workflow", {"name": "deep-research", "tools": "WebSearch, WebFetch"})
    assert [tool for tool, _ in questions] == ["Workflow", "Write"]
    assert len([r for r in search_server.requests if r.path.startswith("/search")]) == 5
    record = json.loads(Path(result.split("Record: ")[1].strip()).read_text())
    assert [p["name"] for p in record["phases"]] == [
        "scope",
        "search",
        "fetch",
        "verify",
        "synthesize",
    ]
    # 5 dimension URLs and the one they share, deduplicated.
    assert [len(p["agents"]) for p in record["phases"]] == [1, 5, 6, 3, 1]
    assert all(a["status"] == "completed" for p in record["phases"] for a in p["agents"])
    # Refuted by all three skeptics: dropped; by one: contested; by none: confirmed.
    synthesis = researchers.synthesis_prompt
    assert "claim of https://src.example/history" not in synthesis
    assert "Contested (1) claim of https://src.example/shared" in synthesis
    assert "Confirmed (0) claim of https://src.example/mechanics" in synthesis
    for section in ("Executive summary", "Key findings", "Contested findings", "uncertainty"):
        assert section in synthesis
    assert len(child_requests(model_server, "[deep-research:")) >= 16


def build(
    model_server: ModelServer, project: Path
) -> tuple[AgentService, list[tuple[str, dict[str, Any]]]]:
    """A session whose permission questions an approver answers (allowing) and records."""
    questions: list[tuple[str, dict[str, Any]]] = []

    async def approver(tool: str, args: dict[str, Any], reason: str) -> PermissionReply:
        questions.append((tool, args))
        return "allow_once"

    service, _ = create_service_with_extensions(
        AgentOptions(
            workdir=project,
            environ={**model_server.env(), "WAVE_DISABLE_AUTO_MEMORY": "1"},
        ),
        approver=approver,
    )
    service.start()
    return service, questions
