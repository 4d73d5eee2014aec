"""Explore and Plan subagents get the `LSP` tool when a server is configured; the extraction
fork never may call it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.features.lsp.conftest import pylsp_entry, write_settings
from tests.features.lsp.test_wave_p import chats, tool_names, tool_results
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.fork_gate import ForkToolGate

pytestmark = pytest.mark.req("LS6")


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.mark.parametrize("kind", ["Explore", "Plan"])
def test_explore_and_plan_use_the_lsp_tool(
    model_server: ModelServer, code: Path, kind: str
) -> None:
    write_settings(code, pylsp=pylsp_entry())
    model_server.enqueue(
        tool_call(
            "LSP", {"operation": "goToDefinition", "filePath": "app.py", "line": 5, "character": 11}
        ),
        text("greet is defined in helpers.py"),
        when=lambda b: "Agent" not in tool_names(b),  # a subagent never gets Agent
    )
    model_server.enqueue(
        tool_call(
            "Agent",
            {"description": "Find greet", "prompt": "Where is greet?", "subagent_type": kind},
        ),
        text("helpers.py"),
    )
    proc = run_wave(
        "-p", "find greet", cwd=code, server=model_server, env={"WAVE_FAST_MODEL": "fast"}
    )
    assert proc.returncode == 0, proc.stderr
    child = [b for b in chats(model_server) if "Agent" not in tool_names(b)]
    assert "LSP" in tool_names(child[0])
    assert tool_results(child[1]) == ["helpers.py:4:5: def greet(name: str) -> str:"]


def test_the_extraction_fork_may_not_call_it(tmp_path: Path) -> None:
    gate = ForkToolGate(tmp_path / "memory")
    decision = gate.check(
        AnalysedUse.of("LSP", {"operation": "hover", "filePath": "app.py"}, tmp_path)
    )
    assert not decision.allowed
    assert decision.reason.startswith("LSP is not available to the memory extraction.")
