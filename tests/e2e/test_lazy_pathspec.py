"""`wave -p` loads pathspec only when a pattern is matched (rules with `paths`, Glob, Grep)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call

ROOT = Path(__file__).resolve().parents[2]

# `python -X importtime` writes one stderr line per module: "import time: ... | <module>".
_IMPORTED = re.compile(r"^import time:.*\|\s*(\S+)\s*$", re.MULTILINE)


def imported_by_turn(server: ModelServer, project: Path) -> set[str]:
    """The modules one `wave -p` turn imports (the real command, under `-X importtime`)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "wave_tui", "-p", "read"],
        cwd=project,
        env=server.env(PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    return {m.group(1) for m in _IMPORTED.finditer(proc.stderr)}


def write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")


@pytest.mark.req("R3")
@pytest.mark.parametrize(
    ("rule", "loads_pathspec"),
    [("RULE-BODY\n", False), ("---\npaths: '*.txt'\n---\nRULE-BODY\n", True)],
    ids=["unconditional", "paths"],
)
def test_r3_pathspec_is_imported_only_to_match_a_paths_rule(
    model_server: ModelServer, project: Path, rule: str, loads_pathspec: bool
) -> None:
    """R3: matching is lazy, so a turn whose rules have no `paths` never loads pathspec."""
    write(project / ".wave" / "rules" / "rule.md", rule)
    write(project / "a.txt", "alpha\n")
    model_server.enqueue(tool_call("Read", {"file_path": "a.txt"}), text("ok"))
    modules = imported_by_turn(model_server, project)
    assert "wave_tui.memory.rule_match" in modules  # the probe sees wave's own imports
    assert ("pathspec" in modules) is loads_pathspec
    assert "RULE-BODY" in str(model_server.requests[1].body["messages"])
