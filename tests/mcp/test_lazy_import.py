"""No MCP servers configured: the `mcp` SDK is never imported (MC2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.conftest import DEMO, ROOT
from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave

PROBE = """
import asyncio, sys
from pathlib import Path
from wave_tui.mcp.config import StdioServer, load_servers
from wave_tui.mcp.manager import McpManager

async def main(servers):
    manager = McpManager(servers, workdir=Path.cwd(), notify=print)
    manager.start()
    await manager.wait_started()
    manager.tools(), manager.statuses(), manager.system_sections(None)
    await manager.aclose()

with_server = sys.argv[1] == "with-server"
servers = load_servers([], {}).servers
if with_server:
    servers = (StdioServer("demo", sys.executable, (sys.argv[2],), {}, Path("t"), "user"),)
asyncio.run(main(servers))
print(sorted({m.split(".")[0] for m in sys.modules} & {"mcp"}))
"""


def sdk_modules_imported(stderr: str) -> list[str]:
    """Module names from `PYTHONPROFILEIMPORTTIME` lines that belong to the `mcp` SDK."""
    names = [line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if "|" in line]
    return [n for n in names if n == "mcp" or n.startswith("mcp.")]


@pytest.mark.req("MC2")
def test_mc2_a_wave_p_turn_without_mcp_config_never_imports_the_sdk(
    model_server: ModelServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")
    model_server.enqueue(text("hello"))
    proc = run_wave(
        "-p", "hi", cwd=project, server=model_server, env={"PYTHONPROFILEIMPORTTIME": "1"}
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "hello\n"
    assert "import time:" in proc.stderr  # the probe itself works
    assert sdk_modules_imported(proc.stderr) == []


@pytest.mark.req("MC2")
@pytest.mark.parametrize(("mode", "expected"), [("none", "[]"), ("with-server", "['mcp']")])
def test_mc2_the_manager_imports_the_sdk_only_for_a_server(mode: str, expected: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, mode, str(DEMO)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == expected
