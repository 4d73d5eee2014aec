"""The HTTP client for streamable-HTTP MCP servers."""

from __future__ import annotations

from collections.abc import Callable

from wave_tui.net.http import httpx
from wave_tui.net.mcp_bounded import bounded_responses

MCP_CONNECT_TIMEOUT_S = 30.0
# The server may hold a response stream open for a long call; per-call limits are the manager's.
MCP_STREAM_READ_TIMEOUT_S = 300.0
# One message from a server (stdio line, JSON answer, SSE event) is read up to this size: a
# 100 MB result costs a bounded read and an error for its call, not the session.
MCP_MESSAGE_MAX_BYTES = 8 * 1024 * 1024
# Compressed bodies would be bounded before they grow: ask for them as they are.
_IDENTITY = {"Accept-Encoding": "identity"}


def is_loopback(url: str) -> bool:
    host = (httpx.URL(url).host or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def mcp_http_client(
    url: str, headers: dict[str, str], auth: httpx.Auth | None = None
) -> httpx.AsyncClient:
    """A client for one server: its headers, its OAuth (`net/mcp_oauth.py`) if any; a loopback
    server never goes through a proxy."""
    return httpx.AsyncClient(
        headers={**_IDENTITY, **headers},
        auth=auth,
        timeout=httpx.Timeout(MCP_CONNECT_TIMEOUT_S, read=MCP_STREAM_READ_TIMEOUT_S),
        trust_env=not is_loopback(url),
        event_hooks={"response": [bounded_responses(MCP_MESSAGE_MAX_BYTES)]},
    )


def mcp_client_factory(url: str) -> Callable[..., httpx.AsyncClient]:
    """`mcp_http_client` in the shape of the SDK's `httpx_client_factory` (the SSE transport)."""

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx.Timeout | None = None,
        auth: httpx.Auth | None = None,
    ) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            headers={**_IDENTITY, **(headers or {})},
            auth=auth,
            timeout=timeout or httpx.Timeout(MCP_CONNECT_TIMEOUT_S, read=MCP_STREAM_READ_TIMEOUT_S),
            trust_env=not is_loopback(url),
            event_hooks={"response": [bounded_responses(MCP_MESSAGE_MAX_BYTES)]},
        )

    return factory
