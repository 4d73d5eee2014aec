"""The HTTP client for streamable-HTTP MCP servers."""

from __future__ import annotations

from collections.abc import Callable

from wave_tui.net.http import httpx

MCP_CONNECT_TIMEOUT_S = 30.0
# The server may hold a response stream open for a long call; per-call limits are the manager's.
MCP_STREAM_READ_TIMEOUT_S = 300.0


def is_loopback(url: str) -> bool:
    host = (httpx.URL(url).host or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def mcp_http_client(
    url: str, headers: dict[str, str], auth: httpx.Auth | None = None
) -> httpx.AsyncClient:
    """A client for one server: its headers, its OAuth (`net/mcp_oauth.py`) if any; a loopback
    server never goes through a proxy."""
    return httpx.AsyncClient(
        headers=headers,
        auth=auth,
        timeout=httpx.Timeout(MCP_CONNECT_TIMEOUT_S, read=MCP_STREAM_READ_TIMEOUT_S),
        trust_env=not is_loopback(url),
    )


def mcp_client_factory(url: str) -> Callable[..., httpx.AsyncClient]:
    """`mcp_http_client` in the shape of the SDK's `httpx_client_factory` (the SSE transport)."""

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx.Timeout | None = None,
        auth: httpx.Auth | None = None,
    ) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            headers=headers or {},
            auth=auth,
            timeout=timeout or httpx.Timeout(MCP_CONNECT_TIMEOUT_S, read=MCP_STREAM_READ_TIMEOUT_S),
            trust_env=not is_loopback(url),
        )

    return factory
