"""Running an SDK program (a Python file) as a subprocess against the scripted model server."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.model_server import ModelServer

ROOT = Path(__file__).resolve().parents[2]
_EXAMPLE = re.compile(r"<!-- example: ([\w-]+) -->\n```python\n(.*?)```", re.S)


def doc_examples(doc: Path = ROOT / "docs" / "sdk.md") -> dict[str, str]:
    """The named Python examples of a document, as written there."""
    return dict(_EXAMPLE.findall(doc.read_text(encoding="utf-8")))


def run_program(
    source: str,
    *,
    cwd: Path,
    server: ModelServer,
    timeout: float = 60,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`env` adds variables; `QUIET` keeps the extraction fork from taking scripted replies
    meant for the program's next turn."""
    script = cwd.parent / "program.py"
    script.write_text(source, encoding="utf-8")
    full_env = {**server.env(), **(env or {})}
    full_env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


QUIET = {"WAVE_DISABLE_AUTO_MEMORY": "1"}
