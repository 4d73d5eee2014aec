"""The reference MCP servers from npm (`@modelcontextprotocol/server-everything`,
`server-filesystem`) as `mcpServers` entries for a session's user settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.node_packages import node, npm_package

EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31"
FILESYSTEM = "@modelcontextprotocol/server-filesystem@2026.8.31"


def everything_entry() -> dict[str, Any]:
    entry = npm_package(EVERYTHING) / "@modelcontextprotocol/server-everything/dist/index.js"
    return {"command": str(node()), "args": [str(entry), "stdio"]}


def filesystem_entry() -> dict[str, Any]:
    """server-filesystem started without folders: it may use only the client's roots."""
    entry = npm_package(FILESYSTEM) / "@modelcontextprotocol/server-filesystem/dist/index.js"
    return {"command": str(node()), "args": [str(entry)]}


def user_servers(servers: dict[str, Any]) -> None:
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    # These tests drive the MCP client through the flat `mcp__*` tools; Exec has its own.
    settings.write_text(json.dumps({"mcpServers": servers, "enableExec": False}))
