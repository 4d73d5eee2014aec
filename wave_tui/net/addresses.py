"""Which hosts and addresses are private, by every spelling (stdlib only, cheap to import).

`127.1`, `0x7f000001`, `2130706433`, `0177.0.0.1` and `0` are all spellings the C library (and
so every HTTP client) accepts for an IPv4 address; `ipaddress` refuses them, so a check built on
it alone calls them public names. `parse_ip` reads a host the way the connection will; WebFetch
then resolves a name once, checks every address and connects to the checked one.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
_PRIVATE_SUFFIXES = (".localhost", ".local", ".internal", ".home.arpa")
_PRIVATE_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
# What inet_aton may read as an address: digits, hex and dots (`0x7f.1`, `2130706433`).
_NUMERIC = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}$", re.I)


class UnusableHost(ValueError):
    """A host that looks like an address but is none (`999.1.1.1`)."""


def parse_ip(host: str) -> IP | None:
    """The address `host` spells, however it spells it; None for a name.

    Raises UnusableHost for numeric text that is no address."""
    text = host.strip("[]").rstrip(".")
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if not _NUMERIC.match(text):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(text))
    except OSError as exc:
        raise UnusableHost(f"{host} is not a valid address") from exc


def is_private_ip(ip: IP) -> bool:
    """Not a global unicast address: loopback, private, link-local (metadata), CGNAT, reserved,
    unspecified, multicast — and IPv6 forms that embed one (`::ffff:127.0.0.1`)."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is not None and is_private_ip(embedded):
            return True
    return not ip.is_global or ip.is_multicast


def is_private_name(host: str) -> bool:
    """A host private by how it is written: a private address in any spelling, a loopback or
    local name, or no usable host at all. A public-looking name can still resolve to a private
    address: the fetch checks what it resolves to."""
    lowered = host.strip().rstrip(".").lower()
    if not lowered:
        return True
    try:
        ip = parse_ip(lowered)
    except UnusableHost:
        return True
    if ip is None:
        return lowered in _PRIVATE_NAMES or lowered.endswith(_PRIVATE_SUFFIXES)
    return is_private_ip(ip)


async def resolve(host: str, port: int) -> list[IP]:
    """Every address `host` resolves to (the system resolver, hosts file included), in the
    resolver's order; an address literal in any spelling is its own answer."""
    ip = parse_ip(host)
    if ip is not None:
        return [ip]
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found: list[IP] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if address not in found:
            found.append(address)
    return found
