"""The loop extension: documents follow the agent's Reads once a server runs, and servers come
from settings or from a plugin's `.lsp.json` dict."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.features.lsp.conftest import pylsp_entry
from tests.features.lsp.test_operations import call
from wave_tui.agent.extensions import ToolCallInfo, ToolOutcome
from wave_tui.features.lsp.config import LspConfig, parse_servers
from wave_tui.features.lsp.manager import LspManager
from wave_tui.features.lsp.wiring import LspWiring
from wave_tui.tools.base import ToolResult


def read_outcome(path: Path) -> ToolOutcome:
    call_info = ToolCallInfo.of("c1", "Read", {"file_path": str(path)}, path.parent)
    return ToolOutcome(call_info, ToolResult("…", read_paths=[path]))


@pytest.mark.req("LS2")
async def test_a_read_opens_the_file_in_a_running_server_and_never_starts_one(
    pylsp: LspManager, code: Path
) -> None:
    wiring = LspWiring(pylsp, 5.0)
    await wiring.after_tool(read_outcome(code / "helpers.py"))
    assert pylsp.statuses()[0].state == "not started"  # a Read alone starts nothing
    result = await call(pylsp, code, operation="documentSymbol", filePath="app.py")
    assert not result.is_error, result.content
    server = next(iter(pylsp._servers.values()))
    assert not server.is_open(code / "helpers.py")
    await wiring.after_tool(read_outcome(code / "helpers.py"))
    assert server.is_open(code / "helpers.py")


@pytest.mark.req("LS2")
async def test_servers_from_a_plugins_lsp_json_join_the_settings_ones(code: Path) -> None:
    manager = LspManager(LspConfig(), code)
    wiring = LspWiring(manager, 5.0)
    assert wiring.tools() == []  # no server: no tool
    problems = wiring.add_servers(
        {"pylsp": pylsp_entry(), "bad": {"command": "x", "extensionToLanguage": "py"}},
        "plugin demo",
    )
    assert problems == (
        "plugin demo: lspServers.bad: `extensionToLanguage` must map extensions to languages "
        '({".py": "python"})',
    )
    assert [t.name for t in wiring.tools()] == ["LSP"]
    try:
        result = await call(manager, code, operation="documentSymbol", filePath="helpers.py")
    finally:
        await manager.aclose()
    assert result.content == "helpers.py:4:1: Function greet"


def test_a_later_settings_file_wins_by_name() -> None:
    from wave_tui.features.lsp.config import merge

    user = parse_servers(
        {
            "py": pylsp_entry(),
            "ts": {"command": "tsls", "extensionToLanguage": {"ts": "typescript"}},
        },
        "user",
    )
    project = parse_servers(
        {
            "py": {
                "command": "basedpyright-langserver",
                "args": ["--stdio"],
                "extensionToLanguage": {".py": "python"},
            }
        },
        "project",
    )
    merged = merge([user, project])
    assert [(s.name, s.command) for s in merged.servers] == [
        ("py", "basedpyright-langserver"),
        ("ts", "tsls"),
    ]
    assert merged.servers[1].extension_to_language == {".ts": "typescript"}


@pytest.mark.req("LS2")
def test_the_settings_keys_are_declared_so_they_never_warn(
    project: Path, isolated_home: Path
) -> None:
    from wave_tui.config.paths import WavePaths
    from wave_tui.config.settings import SettingsStore

    paths = WavePaths(project_root=project, home=isolated_home)
    paths.user_settings.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings.write_text(
        '{"lspServers": {"pylsp": {"command": "pylsp"}}, "lspDiagnosticsTimeout": 1.5}'
    )
    assert SettingsStore(paths, environ={}).current().problems == ()
