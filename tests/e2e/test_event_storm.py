"""A turn finishes while other processes storm the project with file events (HR13, black box).

The storm (`tests/file_storm.py`) churns the project root, which wave watches for AGENTS.md and
for the files the turn writes: every request drains that watch while the storm fills it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.file_storm import storms
from tests.model_server import ModelServer, text, tool_call, tool_calls
from tests.wave_cli import run_wave

# Not a timing assert: a hung turn fails here instead of hanging the suite.
HANG_GUARD_S = 180.0


def _reminder(model_server: ModelServer, index: int) -> str:
    return json.dumps(model_server.requests[index].body["messages"][1])


@pytest.mark.req("HR13")
def test_hr13_eighty_writes_in_eight_rounds_finish_while_the_project_storms(
    model_server: ModelServer, project: Path
) -> None:
    (project / "AGENTS.md").write_text("Notes before the turn.\n")
    rounds = [
        tool_calls(
            [
                tool_call(
                    "Write",
                    {"file_path": str(project / f"out{r}_{i}.txt"), "content": f"{r}.{i}\n"},
                )
                for i in range(10)
            ]
        )
        for r in range(8)
    ]
    edit = {"file_path": str(project / "AGENTS.md"), "content": "Notes edited amid the storm.\n"}
    agents_md = str(project / "AGENTS.md")
    edit = {"file_path": agents_md, "content": "Notes edited amid the storm.\n"}
    model_server.enqueue(
        *rounds[:4],
        tool_call("Read", {"file_path": agents_md}),  # a file is read before it is written
        tool_call("Write", edit),
        *rounds[4:],
        text("all written"),
    )
    with storms(project):
        proc = run_wave(
            "-p",
            "write the files",
            "--permission-mode",
            "acceptEdits",
            cwd=project,
            server=model_server,
            timeout=HANG_GUARD_S,
        )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "all written"
    assert len(model_server.requests) == 12
    for r in range(8):
        for i in range(10):
            assert (project / f"out{r}_{i}.txt").read_text() == f"{r}.{i}\n"
    # The edit made during the turn is in the very next request, the storm notwithstanding.
    assert "Notes before the turn." in _reminder(model_server, 5)
    assert "Notes edited amid the storm." in _reminder(model_server, 6)


@pytest.mark.req("HR13")
def test_hr13_agents_md_edited_in_a_burst_of_20000_files_is_in_the_next_request(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    """The burst runs as the turn's own Bash call; the request after its result is built from
    what the disk holds then (the kernel's queue overflowed on the way)."""
    (project / "AGENTS.md").write_text("Notes before the burst.\n")
    script = tmp_path / "burst.py"
    script.write_text(
        "from pathlib import Path\n"
        "for i in range(20_000):\n"
        "    if i == 10_000:\n"
        "        Path('AGENTS.md').write_text('Notes rewritten amid the burst.\\n')\n"
        "    Path(f'gen{i:06d}.txt').write_bytes(b'')\n"
    )
    model_server.enqueue(tool_call("Bash", {"command": f"{sys.executable} {script}"}), text("done"))
    proc = run_wave(
        "-p",
        "make files",
        "--allowedTools",
        "Bash",
        cwd=project,
        server=model_server,
        timeout=HANG_GUARD_S,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(list(project.glob("gen*.txt"))) == 20_000
    assert "Notes before the burst." in _reminder(model_server, 0)
    assert "Notes rewritten amid the burst." in _reminder(model_server, 1)
