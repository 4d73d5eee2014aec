"""MCP server configuration: `.mcp.json`, settings `mcpServers`, `${VAR}` expansion (MC1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.mcp.config import (
    MCP_JSON_SCOPE,
    HttpServer,
    StdioServer,
    expand_vars,
    load_servers,
    read_mcp_json,
)


@pytest.mark.req("MC1")
def test_mc1_stdio_and_http_entries_from_mcp_json(project: Path) -> None:
    path = WavePaths.for_workdir(project).project_mcp_json
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {"command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}},
                    "web": {"type": "http", "url": "https://x.test/mcp", "headers": {"A": "b"}},
                }
            }
        )
    )
    layer, problem = read_mcp_json(path)
    assert problem is None and layer is not None
    config = load_servers([layer], {})
    assert config.problems == ()
    files, web = config.servers
    assert files == StdioServer("files", "npx", ("-y", "srv"), {"K": "v"}, path, MCP_JSON_SCOPE)
    assert web == HttpServer("web", "https://x.test/mcp", {"A": "b"}, path, MCP_JSON_SCOPE)
    assert config.project_servers == {"files", "web"}


@pytest.mark.req("MC1")
def test_mc1_var_expansion_with_defaults() -> None:
    env = {"HOME": "/h", "EMPTY": ""}
    assert expand_vars("${HOME}/x", env) == "/h/x"
    assert expand_vars("${MISSING:-fallback}", env) == "fallback"
    assert expand_vars("${EMPTY:-d}", env) == "d"
    assert expand_vars("${EMPTY}", env) == ""
    assert expand_vars("plain $HOME", env) == "plain $HOME"


@pytest.mark.req("MC1")
def test_mc1_expansion_applies_to_every_value(tmp_path: Path) -> None:
    data = {
        "mcpServers": {
            "s": {"command": "${BIN}", "args": ["--root", "${ROOT:-/r}"], "env": {"T": "${TOK}"}},
            "h": {
                "type": "http",
                "url": "http://${HOST}/mcp",
                "headers": {"Auth": "Bearer ${TOK}"},
            },
        }
    }
    env = {"BIN": "/usr/bin/srv", "TOK": "secret", "HOST": "127.0.0.1:9"}
    s, h = load_servers([(tmp_path / "settings.json", "user", data)], env).servers
    assert isinstance(s, StdioServer) and isinstance(h, HttpServer)
    assert (s.command, s.args, dict(s.env)) == ("/usr/bin/srv", ("--root", "/r"), {"T": "secret"})
    assert (h.url, dict(h.headers)) == ("http://127.0.0.1:9/mcp", {"Auth": "Bearer secret"})


@pytest.mark.req("MC1")
def test_mc1_a_bad_entry_is_one_line_and_the_rest_load(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    data = {
        "mcpServers": {
            "good": {"command": "srv"},
            "noenv": {"command": "${NOT_SET_ANYWHERE}"},
            "args": {"command": "srv", "args": "not-a-list"},
            "sse": {"type": "sse", "url": "ftp://x"},
            "nourl": {"type": "http"},
            "ftp": {"type": "http", "url": "ftp://x"},
            "bad name": {"command": "srv"},
            "neither": {},
            "scalar": 3,
        }
    }
    config = load_servers([(path, "user", data)], {})
    assert [s.name for s in config.servers] == ["good"]
    assert len(config.problems) == 8
    assert all(p.startswith(f"{path}: MCP server ") and "\n" not in p for p in config.problems)
    assert any("${NOT_SET_ANYWHERE} is not set" in p for p in config.problems)
    assert any("'sse' skipped: url must start with http://" in p for p in config.problems)


@pytest.mark.req("MC1")
def test_mc1_settings_override_mcp_json_by_name(tmp_path: Path) -> None:
    mcp_json = (tmp_path / ".mcp.json", MCP_JSON_SCOPE, {"mcpServers": {"a": {"command": "one"}}})
    user = (tmp_path / "user.json", "user", {"mcpServers": {"a": {"command": "two"}}})
    config = load_servers([mcp_json, user], {})
    (a,) = config.servers
    assert isinstance(a, StdioServer) and a.command == "two"
    assert not a.needs_trust and config.project_servers == frozenset()


@pytest.mark.req("MC8")
def test_mc8_project_settings_servers_need_trust_like_mcp_json(tmp_path: Path) -> None:
    layers = [
        (tmp_path / "u.json", "user", {"mcpServers": {"u": {"command": "x"}}}),
        (tmp_path / "p.json", "project", {"mcpServers": {"p": {"command": "x"}}}),
        (tmp_path / "l.json", "local", {"mcpServers": {"l": {"command": "x"}}}),
    ]
    assert load_servers(layers, {}).project_servers == {"p", "l"}


@pytest.mark.req("MC1")
def test_mc1_unreadable_mcp_json_is_one_line(tmp_path: Path) -> None:
    missing = read_mcp_json(tmp_path / ".mcp.json")
    assert missing == (None, None)
    (tmp_path / ".mcp.json").write_text("{not json")
    layer, problem = read_mcp_json(tmp_path / ".mcp.json")
    assert layer is None and problem is not None and "not valid JSON" in problem
    (tmp_path / ".mcp.json").write_text("[]")
    assert (
        read_mcp_json(tmp_path / ".mcp.json")[1]
        == f"{tmp_path / '.mcp.json'}: expected a JSON object"
    )
    bad_section = load_servers([(tmp_path / "s.json", "user", {"mcpServers": []})], {})
    assert bad_section.servers == () and len(bad_section.problems) == 1
