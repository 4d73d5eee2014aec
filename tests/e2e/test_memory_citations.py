"""Verified citations through `wave -p` and `wave memory list --json` (MM1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths

CODE = "def load():\n    return 1\n\nTIMEOUT = 30\n"


def listing(project: Path) -> dict[str, dict]:
    proc = run_wave("memory", "list", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    return {e["id"]: e for e in json.loads(proc.stdout)}


@pytest.mark.req("MM1")
def test_a_memory_written_by_the_agent_is_pinned_then_marked_when_the_code_changes(
    model_server: ModelServer, project: Path
) -> None:
    code = project / "src" / "app.py"
    code.parent.mkdir()
    code.write_text(CODE)
    topic = WavePaths.for_workdir(project).memory_dir / "timeout.md"
    body = (
        "---\nname: timeout\ntype: project\n---\nThe timeout is src/app.py:4; see src/app.py#load\n"
    )
    model_server.enqueue(
        tool_call("Write", {"file_path": str(topic), "content": body}), text("saved")
    )
    proc = run_wave("-p", "remember the timeout", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    # The pin was taken at the write: the change comes before anything lists the memory.
    code.write_text(CODE.replace("TIMEOUT = 30", "TIMEOUT = 60"))
    entry = listing(project)["auto:timeout.md"]
    assert entry["changed_refs"] == [
        {"ref": "src/app.py:4", "old": "TIMEOUT = 30", "new": "TIMEOUT = 60"}
    ]
    table = run_wave("memory", "list", cwd=project).stdout
    assert "citation changed: src/app.py:4" in table


@pytest.mark.req("MM1")
def test_reading_a_memory_whose_citation_changed_tells_the_model_old_and_new(
    model_server: ModelServer, project: Path
) -> None:
    code = project / "src" / "app.py"
    code.parent.mkdir()
    code.write_text(CODE)
    memory = WavePaths.for_workdir(project).memory_dir
    memory.mkdir(parents=True)
    topic = memory / "timeout.md"
    topic.write_text("---\nname: timeout\ntype: project\n---\nThe timeout is src/app.py:4\n")
    assert listing(project)["auto:timeout.md"]["changed_refs"] == []  # first sight pins it
    code.write_text(CODE.replace("TIMEOUT = 30", "TIMEOUT = 5"))
    model_server.enqueue(tool_call("Read", {"file_path": str(topic)}), text("ok"))
    proc = run_wave("-p", "what is the timeout", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    content = model_server.requests[1].body["messages"][-1]["content"]
    assert content.startswith(
        '<system-reminder>citation changed: `src/app.py:4` was "TIMEOUT = 30", now '
        '"TIMEOUT = 5". This memory was written against the old text; verify it against the '
        "current code before relying on it.</system-reminder>\n"
    )
