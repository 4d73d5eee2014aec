"""`wave -p /init` writes AGENTS.md (MX1). Needs `memory_commands()` registered in the command
registry that `-p` dispatches through (agent/commands.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave


@pytest.mark.req("MX1")
def test_mx1_wave_p_init_writes_agents_md(model_server: ModelServer, project: Path) -> None:
    (project / "Makefile").write_text("test:\n\tpytest -q\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "Makefile"}),
        tool_call("Write", {"file_path": "AGENTS.md", "content": "- Test: `make test`\n"}),
        text("Wrote AGENTS.md."),
        when=is_main,
    )
    model_server.enqueue(text("nothing"), when=is_fork)
    proc = run_wave(
        "-p", "/init", "--permission-mode", "acceptEdits", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    assert (project / "AGENTS.md").read_text() == "- Test: `make test`\n"
    first = next(r for r in model_server.requests if is_main(r.body))
    assert "Study this repository" in first.body["messages"][-1]["content"]
    assert "/init" not in first.body["messages"][-1]["content"]
