"""One plugin folder read: both layouts, Claude Code's component shapes, the root variables, and
each kind of bad input as one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.features.plugins.builders import LAYOUTS, make_plugin, write, write_json
from wave_tui.features.lsp.config import parse_servers
from wave_tui.features.plugins.manifest import ManifestError, load_plugin
from wave_tui.features.user_hooks import Layer, parse_layers
from wave_tui.mcp.config import load_servers


@pytest.mark.req("PG1")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_plugin_loads_in_either_layout_with_every_default_folder(
    tmp_path: Path, layout: str
) -> None:
    root = make_plugin(tmp_path / "p", "demo", layout=layout, hook_log=tmp_path / "log")
    plugin = load_plugin(root)
    assert (plugin.name, plugin.version, plugin.description) == ("demo", "1.0.0", "The demo plugin")
    assert plugin.command_dirs == (root / "commands",)
    assert plugin.agent_dirs == (root / "agents",)
    assert plugin.skill_dirs == (root / "skills",)
    assert plugin.hooks_source == root / "hooks" / "hooks.json"
    assert plugin.problems == ()


@pytest.mark.req("PG2")
@pytest.mark.parametrize("variable", ["CLAUDE_PLUGIN_ROOT", "WAVE_PLUGIN_ROOT"])
def test_both_root_variables_expand_in_hooks_mcp_and_lsp(tmp_path: Path, variable: str) -> None:
    root = make_plugin(tmp_path / "p", "demo", hook_log=tmp_path / "log", root_variable=variable)
    # The flat `.mcp.json` of many Claude Code plugins, and the `{"mcpServers": …}` form inline.
    write_json(
        root / ".mcp.json",
        {
            "db": {
                "command": f"${{{variable}}}/servers/db",
                "args": ["--data", f"${{{variable}}}/d"],
            }
        },
    )
    write_json(
        root / ".lsp.json",
        {"pyls": {"command": f"${{{variable}}}/bin/ls", "extensionToLanguage": {".py": "python"}}},
    )
    plugin = load_plugin(root)
    assert plugin.hooks is not None and plugin.mcp_servers is not None and plugin.lsp_servers
    hooks = parse_layers([Layer(root / "hooks/hooks.json", "user", plugin.hooks)])
    assert hooks.problems == ()
    assert hooks.hooks[0].command == f"{root}/hooks-handlers/prompt.sh"
    mcp = load_servers([(root / ".mcp.json", "user", {"mcpServers": plugin.mcp_servers})], {})
    (server,) = mcp.servers
    assert server.kind == "stdio"
    assert (server.command, server.args) == (f"{root}/servers/db", ("--data", f"{root}/d"))
    lsp = parse_servers(plugin.lsp_servers, "plugin", "user")
    assert lsp.servers[0].command == f"{root}/bin/ls"


@pytest.mark.req("PG1")
def test_manifest_paths_and_inline_configs_are_claude_codes(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write_json(
        root / ".claude-plugin" / "plugin.json",
        {
            "name": "custom",
            "commands": ["./admin-commands", "./extra.md"],
            "agents": "./specialized-agents",
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}
                ]
            },
            "mcpServers": {"github": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/s.js"]}},
        },
    )
    write(root / "admin-commands" / "a.md", "A")
    write(root / "extra.md", "E")
    write(root / "specialized-agents" / "x.md", "---\nname: x\ndescription: X\n---\nX")
    plugin = load_plugin(root)
    resolved = root.resolve()
    assert plugin.command_dirs == (resolved / "admin-commands", resolved / "extra.md")
    assert plugin.agent_dirs == (resolved / "specialized-agents",)
    assert plugin.hooks == {"hooks": {"PreToolUse": plugin.hooks["hooks"]["PreToolUse"]}}
    assert plugin.mcp_servers == {"github": {"command": "node", "args": [f"{root}/s.js"]}}
    assert plugin.version == ""  # none given: the installer takes the market's


@pytest.mark.req("PG1")
def test_a_broken_manifest_is_one_line(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write(root / ".claude-plugin" / "plugin.json", '{"name": "x",')
    with pytest.raises(ManifestError) as broken:
        load_plugin(root)
    assert "not valid JSON (line 1)" in str(broken.value) and "\n" not in str(broken.value)
    write_json(root / ".claude-plugin" / "plugin.json", {"name": "has spaces"})
    with pytest.raises(ManifestError, match="`name` must be"):
        load_plugin(root)
    with pytest.raises(ManifestError, match="no plugin manifest"):
        load_plugin(tmp_path / "nothing")


@pytest.mark.req("PG1")
def test_a_missing_component_folder_or_bad_hook_file_is_one_line_and_the_rest_loads(
    tmp_path: Path,
) -> None:
    root = make_plugin(tmp_path / "p", "demo")
    manifest = root / ".claude-plugin" / "plugin.json"
    write_json(manifest, {"name": "demo", "commands": "./gone", "agents": "../outside"})
    write_json(root / "hooks" / "hooks.json", {"hooks": ["not", "an", "object"]})
    plugin = load_plugin(root)
    assert plugin.command_dirs == (root / "commands",)  # the default folder still loads
    assert [p.split(": ", 1)[1] for p in plugin.problems] == [
        "commands folder './gone' is missing",
        "agents: '../outside' leaves the plugin folder",
        "`hooks` must be an object of event names",
    ]
    assert plugin.hooks is None
