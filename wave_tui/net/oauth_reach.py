"""Which addresses the OAuth flow of an HTTP MCP server may reach on its own.

An MCP server's metadata chooses where wave sends the discovery, registration, token and refresh
requests (`authorization_servers`, `token_endpoint`, `registration_endpoint`, the
`resource_metadata` of a 401). A public server could so steer wave at the user's network: the
cloud metadata service (169.254.169.254), an intranet host, a service on loopback. So a request
of the flow goes to a non-public address only when the MCP server the user configured is on the
same kind of address (an intranet server with its intranet authorization server), or on loopback
(the user's own machine, which reaches that network anyway).
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from wave_tui.net.addresses import IP, UnusableHost, is_private_ip, resolve

AddressKind = Literal["public", "loopback", "link-local", "private"]
# The least public kind wins when a name resolves to several addresses.
_NARROWEST: tuple[AddressKind, ...] = ("link-local", "loopback", "private")
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


class UnreachableEndpoint(Exception):
    """An OAuth request of the flow would reach an address the MCP server may not send wave to."""


def ip_kind(ip: IP) -> AddressKind:
    embedded = getattr(ip, "ipv4_mapped", None)
    if embedded is not None:
        return ip_kind(embedded)
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    return "private" if is_private_ip(ip) else "public"


async def host_kind(host: str, port: int) -> AddressKind | None:
    """The kind of address `host` is (the least public of what it resolves to); None when it
    does not resolve (the connection then fails on its own)."""
    lowered = host.strip("[]").rstrip(".").lower()
    if lowered in _LOOPBACK_NAMES or lowered.endswith(".localhost"):
        return "loopback"
    try:
        found = await resolve(lowered, port)
    except UnusableHost:
        return "private"
    except OSError:
        return None
    kinds = {ip_kind(ip) for ip in found}
    for kind in _NARROWEST:
        if kind in kinds:
            return kind
    return "public" if kinds else None


async def _url_kind(url: str) -> tuple[str, AddressKind | None]:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = parts.hostname or ""
    return host, await host_kind(host, port)


async def check_reach(server_url: str, target_url: str) -> None:
    """Raise `UnreachableEndpoint` when the flow of the server at `server_url` may not send a
    request to `target_url` (see the module's docstring)."""
    host, target = await _url_kind(target_url)
    if target is None or target == "public":
        return
    server_host, server = await _url_kind(server_url)
    if server == target or server == "loopback":
        return
    shown = urlsplit(target_url)._replace(query="", fragment="").geturl()
    raise UnreachableEndpoint(
        f"refused an OAuth request to {shown}: {host} is a {target} address and the MCP "
        f"server ({server_host}) is not"
    )
