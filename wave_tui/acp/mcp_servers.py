"""The ACP client's MCP servers (`mcpServers` of `session/new` and `session/load`) as wave's
`mcpServers` settings entries.

They are the client's user's own servers (Zed passes the servers its user configured this way),
so they join the session as the SDK's `mcp_servers` do: one more layer of the user's scope,
read after the settings files and `.mcp.json`, with nothing to trust. A name that wave's own
settings use as well is the client's server then (the client's wins). A name wave cannot use as
the `mcp__<server>__` prefix of its tools ("My server", `a__b`) is made one: other characters
become `-`, runs of `_` one `_`, none at either end; two client servers that come out with one
name get `-2`, `-3`, … in the order the client listed them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

from acp import schema

_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_UNDERSCORES = re.compile(r"_{2,}")


def _usable_name(name: str) -> str:
    cleaned = _UNDERSCORES.sub("_", _NOT_IN_NAME.sub("-", name)).strip("_-")
    return cleaned or "server"


def _entry(server: Any) -> dict[str, Any] | None:
    if isinstance(server, schema.McpServerStdio):
        return {
            "command": server.command,
            "args": list(server.args),
            "env": {variable.name: variable.value for variable in server.env},
        }
    if isinstance(server, (schema.HttpMcpServer, schema.SseMcpServer)):
        return {
            "type": server.type,
            "url": server.url,
            "headers": {header.name: header.value for header in server.headers},
        }
    return None


# req: MA10
def client_mcp_servers(servers: Sequence[Any] | None) -> dict[str, Any]:
    """The client's servers by the name wave gives them, in its order; a transport wave does
    not offer (`acp`) is left out with one line on stderr."""
    entries: dict[str, Any] = {}
    for server in servers or ():
        entry = _entry(server)
        if entry is None:
            kind = getattr(server, "type", type(server).__name__)
            print(f"wave: MCP server {server.name!r} ({kind}) is not supported", file=sys.stderr)
            continue
        base = _usable_name(server.name)
        name, n = base, 1
        while name in entries:
            n += 1
            name = f"{base}-{n}"
        entries[name] = entry
    return entries
