"""The Exec catalog: the MCP tool pool as text for a tail isMeta message, and its search.

Rendered per server; over `CATALOG_BUDGET_CHARS` the servers take turns (one tool each, round
after round), so a server connected last still shows, and the message says `PARTIAL — X of Y`
with the search call that finds the rest — never a silent cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wave_tui.mcp.tools import MCP_PREFIX
from wave_tui.tools.base import Tool

CATALOG_BUDGET_CHARS = 24_000
DESCRIPTION_CHARS = 200  # one line per tool in the catalog; `search` gives the full text
CATALOG_HEADER = (
    "<exec-catalog>\nMCP tools callable inside the Exec tool's script as "
    "`await tools.<name>(args)` (rules and approvals as for the tool itself):"
)
CATALOG_FOOTER = "</exec-catalog>"
PARTIAL_NOTE = (
    'PARTIAL — {shown} of {total} tools listed; find the others with `await tools["$codemode"]'
    '.search({{query: "words"}})` (an empty query lists all).'
)
POOL_EMPTY = (
    "<exec-catalog>\nNo MCP tools are connected now: the Exec tool has nothing to call until a "
    "server is back.\n</exec-catalog>"
)


def server_of(tool: Tool) -> str:
    server = getattr(tool, "server", None)
    if isinstance(server, str):
        return server
    return tool.name.removeprefix(MCP_PREFIX).split("__", 1)[0]


def signature(tool: Tool) -> str:
    """`name({a: string, b?: number})` from the input schema."""
    schema = tool.parameters
    properties = schema.get("properties")
    required = set(schema.get("required") or ())
    parts = []
    if isinstance(properties, dict):
        for key, spec in properties.items():
            kind = spec.get("type", "any") if isinstance(spec, dict) else "any"
            kind = "|".join(kind) if isinstance(kind, list) else str(kind)
            parts.append(f"{key}{'' if key in required else '?'}: {kind}")
    return f"{tool.name}({{{', '.join(parts)}}})"


def _line(tool: Tool) -> str:
    text = " ".join(tool.description.split())
    if len(text) > DESCRIPTION_CHARS:
        text = text[:DESCRIPTION_CHARS] + "…"
    return f"- {signature(tool)}: {text}" if text else f"- {signature(tool)}"


# req: EX1
def render_catalog(pool: Sequence[Tool]) -> str:
    """The catalog message's text (the empty-pool notice for an empty pool)."""
    if not pool:
        return POOL_EMPTY
    by_server: dict[str, list[str]] = {}
    for tool in pool:
        by_server.setdefault(server_of(tool), []).append(_line(tool))
    kept: dict[str, list[str]] = {server: [] for server in by_server}
    room = CATALOG_BUDGET_CHARS
    shown = 0
    full = False
    for depth in range(max(len(lines) for lines in by_server.values())):
        for server, lines in by_server.items():
            if depth >= len(lines):
                continue
            if len(lines[depth]) + 1 > room:
                full = True
                break
            kept[server].append(lines[depth])
            room -= len(lines[depth]) + 1
            shown += 1
        if full:
            break
    body = [CATALOG_HEADER]
    for server, lines in kept.items():
        if lines:
            body.append(f"## {server}")
            body.extend(lines)
    if shown < len(pool):
        body.append(PARTIAL_NOTE.format(shown=shown, total=len(pool)))
    body.append(CATALOG_FOOTER)
    return "\n".join(body)


def search(pool: Sequence[Tool], query: str) -> list[dict[str, Any]]:
    """Tools whose name or description has every word of `query` (all for an empty query)."""
    words = query.lower().split()
    found = []
    for tool in pool:
        text = f"{tool.name} {tool.description}".lower()
        if all(word in text for word in words):
            found.append(
                {
                    "name": tool.name,
                    "description": tool.description,
                    "signature": signature(tool),
                    "parameters": tool.parameters,
                }
            )
    return found
