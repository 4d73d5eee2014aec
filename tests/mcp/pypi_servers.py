"""The PyPI reference MCP servers (`mcp-server-git`, FastMCP 2.x), installed on first use into
virtual environments of their own under `.cache/mcp2-venv/` in the checkout.

Not into wave's venv: `mcp-server-git` needs the MCP SDK 2.x while wave runs on `mcp<2`, and
FastMCP 2.x needs `mcp<2` — so one venv per server package. pytest-xdist workers share one
install: a file lock serialises them, and a finished install is marked by a stamp file naming
the pinned version (a new pin reinstalls).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from filelock import FileLock

ROOT = Path(__file__).resolve().parent.parent.parent
CACHE = ROOT / ".cache" / "mcp2-venv"
GIT_SERVER = "mcp-server-git==2026.10.19"
FASTMCP = "fastmcp==2.14.7"
INSTALL_TIMEOUT_S = 900


def venv(spec: str) -> Path:
    """A venv holding `spec` (`name==version`), created and filled once; its root folder."""
    home = CACHE / spec.split("==")[0]
    stamp = home / ".installed"
    CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(home) + ".lock"):
        if not stamp.exists() or stamp.read_text() != spec:
            shutil.rmtree(home, ignore_errors=True)
            _run(sys.executable, "-m", "venv", str(home))
            _run(str(home / "bin" / "pip"), "install", "--disable-pip-version-check", spec)
            stamp.write_text(spec)
    return home


def mcp_server_git() -> Path:
    """The `mcp-server-git` console script."""
    return venv(GIT_SERVER) / "bin" / "mcp-server-git"


def fastmcp_python() -> Path:
    """The interpreter of FastMCP's venv, for the FastMCP scripts the tests write."""
    return venv(FASTMCP) / "bin" / "python"


def _run(*args: str) -> None:
    subprocess.run(
        list(args),
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=INSTALL_TIMEOUT_S,
    )
