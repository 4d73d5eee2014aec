"""`wave -p` loads pathspec only when a pattern is matched (rules with `paths`, Glob, Grep)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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


def test_r3_turn_without_conditional_rules_does_not_import_pathspec(
    model_server: ModelServer, project: Path
) -> None:
    """R3: matching is lazy, so a Read with only an unconditional rule never loads pathspec."""
    write(project / ".wave" / "rules" / "style.md", "Use tabs.\n")
    write(project / "a.txt", "alpha\n")
    model_server.enqueue(tool_call("Read", {"file_path": "a.txt"}), text("ok"))
    modules = imported_by_turn(model_server, project)
    assert "wave_tui.memory.rule_match" in modules  # the probe sees wave's own imports
    assert "pathspec" not in modules


def test_r3_conditional_rule_match_imports_pathspec(
    model_server: ModelServer, project: Path
) -> None:
    """R3: the same turn with a `paths` rule matching the file read does load it."""
    write(project / ".wave" / "rules" / "txt.md", "---\npaths: '*.txt'\n---\nTXT-RULE\n")
    write(project / "a.txt", "alpha\n")
    model_server.enqueue(tool_call("Read", {"file_path": "a.txt"}), text("ok"))
    assert "pathspec" in imported_by_turn(model_server, project)
    assert "TXT-RULE" in str(model_server.requests[1].body["messages"])
