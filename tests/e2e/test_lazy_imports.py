"""A plain `wave -p` turn loads only what it runs (AC1).

Modules for features the turn does not use — a fetched page, YAML beyond simple frontmatter,
gitignore matching, file locks, the app's screens and their queries — load on first use. Read
from `PYTHONPROFILEIMPORTTIME`, so the check sees every import of the real process.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("MC2")

NOT_ON_A_PLAIN_TURN = (
    "markdownify",  # WebFetch's HTML to Markdown (with bs4 and soupsieve)
    "bs4",
    "soupsieve",
    "wave_tui.net.page_markdown",
    "yaml",  # simple frontmatter takes the fast path; here there is none at all
    "pathspec",  # conditional rules' path matching
    "filelock",
    "json_repair",  # only for a tool call whose arguments do not parse
    "difflib",  # comparing memories or file versions
    "mcp",  # no MCP server configured (MC2)
    "textual",
    "click",  # httpx's command-line client (with rich and pygments): wave never runs it
    "rich",
    "pygments",
    "wave_tui.tui",
    "wave_tui.session.model_menu",  # the app's pickers, previews and connection check
    "wave_tui.session.permission_preview",
    "wave_tui.session.permission_state",
    "wave_tui.session.connection_check",
    "wave_tui.session.session_summaries",
    "wave_tui.session.completion",
    "wave_tui.features.memory.context_report",  # /context
    "wave_tui.session.memory_review",  # the app's inbox and runs
    "wave_tui.session.endpoint_settings",
    "wave_tui.session.input_history",
    "PIL",  # images: only when one is read or attached
    "wave_tui.tools.image_read",
    "wave_tui.net.web_search",  # no WebSearch backend configured
    "pydantic_settings",  # the settings are merged by wave and validated by its pydantic schema
    "cachetools",  # WebFetch's page cache, made with the first fetch
    "xml.sax",  # background-task notices escape with html.escape
    "_quickjs",  # the Exec tool's JavaScript engine: only when a script runs
    "wave_tui.tools.js_engine",
)


def imported_modules(stderr: str) -> set[str]:
    """Module names from `PYTHONPROFILEIMPORTTIME` lines."""
    return {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if "|" in line}


def loaded(names: set[str], module: str) -> bool:
    return any(n == module or n.startswith(module + ".") for n in names)


@pytest.mark.req("AC1")
def test_ac1_a_plain_turn_imports_no_module_of_an_unused_feature(
    model_server: ModelServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model_server.enqueue(text("hello"), text("nothing to save"))  # the turn, the extraction fork
    proc = run_wave(
        "-p", "hi", cwd=project, server=model_server, env={"PYTHONPROFILEIMPORTTIME": "1"}
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "hello\n"
    names = imported_modules(proc.stderr)
    assert "wave_tui.session.facade" in names  # the probe itself works
    assert [m for m in NOT_ON_A_PLAIN_TURN if loaded(names, m)] == []


@pytest.mark.req("AC1")
def test_version_imports_neither_the_settings_schema_nor_asyncio(project: Path) -> None:
    """`wave --version` answers from the argument parser alone: pydantic (the settings schema)
    and asyncio are what made it slower than every peer's."""
    proc = run_wave("--version", cwd=project, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert proc.returncode == 0 and proc.stdout.startswith("wave ")
    names = imported_modules(proc.stderr)
    assert "wave_tui.cli.main" in names
    assert [
        m for m in ("pydantic", "pydantic_settings", "asyncio", "httpx") if loaded(names, m)
    ] == []
