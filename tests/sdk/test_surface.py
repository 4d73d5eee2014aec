"""The public surface: `wave_tui.__all__`, loaded lazily, and no Textual in an SDK program."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.model_server import ModelServer
from tests.sdk.programs import ROOT, run_program


def _python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


_LOADED = "json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'acp', 'pydantic') or m.startswith('wave_tui')))"


@pytest.mark.req("SD1")
def test_the_public_names_load_on_first_use() -> None:
    out = _python(
        "import sys, json, wave_tui\n"
        f"print({_LOADED})\n"
        "for name in wave_tui.__all__: getattr(wave_tui, name)\n"
        "print(sorted(dir(wave_tui)) == sorted(wave_tui.__all__))\n"
        "try:\n    wave_tui.AgentService\nexcept AttributeError as exc:\n    print(exc)\n"
    )
    loaded, listed, refused = out.splitlines()
    # `import wave_tui` costs nothing but the one lazy-export helper (and its package's docstring)
    assert json.loads(loaded) == ["wave_tui", "wave_tui.config", "wave_tui.config.lazy_exports"]
    assert listed == "True"
    assert refused == "module 'wave_tui' has no attribute 'AgentService'"


@pytest.mark.req("SD1")
def test_wave_version_loads_no_sdk_and_the_sdk_loads_no_textual() -> None:
    out = _python(
        "import sys, json\n"
        "from wave_tui.cli.main import main\n"
        "main(['--version'])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('wave_tui.sdk', 'acp')))))\n"
        "from wave_tui import Agent, tool, list_sessions\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'acp'))))\n"
    )
    version, before, after = out.splitlines()
    assert version == "wave 0.1.0"
    assert json.loads(before) == []
    assert json.loads(after) == []


PROGRAM = """
import asyncio, json, sys
from wave_tui import Agent, tool


@tool
def noop() -> str:
    return "ok"


async def main() -> None:
    async with await Agent.create(custom_tools=[noop]) as agent:
        await agent.send_message("hi")
    print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich", "acp"))))


asyncio.run(main())
"""


@pytest.mark.req("SD1")
def test_an_sdk_program_never_imports_textual(project: Path, model_server: ModelServer) -> None:
    done = run_program(PROGRAM, cwd=project, server=model_server)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
