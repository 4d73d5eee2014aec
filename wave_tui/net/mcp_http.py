"""The HTTP client for streamable-HTTP MCP servers."""

from __future__ import annotations

from wave_tui.net.http import httpx

MCP_CONNECT_TIMEOUT_S = 30.0
# The server may hold a response stream open for a long call; per-call limits are the manager's.
MCP_STREAM_READ_TIMEOUT_S = 300.0


def is_loopback(url: str) -> bool:
    host = (httpx.URL(url).host or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def mcp_http_client(url: str, headers: dict[str, str]) -> httpx.AsyncClient:
    """A client for one server: its headers; a loopback server never goes through a proxy."""
    return httpx.AsyncClient(
        headers=headers,
        timeout=httpx.Timeout(MCP_CONNECT_TIMEOUT_S, read=MCP_STREAM_READ_TIMEOUT_S),
        trust_env=not is_loopback(url),
    )
