"""A fixture project, the real pylsp language server, and the fake one for faults."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from wave_tui.features.lsp.config import parse_servers
from wave_tui.features.lsp.manager import LspManager

FAKE = Path(__file__).resolve().parent / "servers" / "fake_lsp.py"
ROOT = Path(__file__).resolve().parents[3]

HELPERS = '''"""Helpers."""


def greet(name: str) -> str:
    """Say hello to someone."""
    return f"hello {name}"
'''
APP = """from helpers import greet


def main() -> None:
    print(greet("wave"))
    print(greet("wörld"))
"""


def pylsp_entry(**extra: Any) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": ["-m", "pylsp"],
        "extensionToLanguage": {".py": "python"},
        **extra,
    }


def fake_entry(mode: str, **env: str) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(FAKE)],
        "extensionToLanguage": {".py": "python"},
        "env": {"FAKE_LSP_MODE": mode, **env},
        "startupTimeout": 3000,
        "requestTimeout": 2000,
    }


@pytest.fixture
def code(project: Path) -> Path:
    """The fixture project: two Python modules, one using the other."""
    (project / "helpers.py").write_text(HELPERS)
    (project / "app.py").write_text(APP)
    return project


def write_settings(project: Path, **servers: dict[str, Any]) -> None:
    folder = project / ".wave"
    folder.mkdir(exist_ok=True)
    (folder / "settings.json").write_text(
        json.dumps({"lspServers": servers, "lspDiagnosticsTimeout": 30})
    )


@pytest.fixture
async def pylsp(code: Path) -> AsyncIterator[LspManager]:
    manager = LspManager(parse_servers({"pylsp": pylsp_entry()}, "test"), code)
    try:
        yield manager
    finally:
        await manager.aclose()
