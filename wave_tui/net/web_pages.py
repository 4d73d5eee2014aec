"""The HTTP side of WebFetch: GET a page, turn HTML into Markdown, cache it (WF1–WF3).

- `http://` is upgraded to `https://`, except for loopback hosts (a local server has no TLS);
- redirects on the same host (give or take `www.`) are followed, a redirect to another host is
  returned as `CrossHostRedirect` so the model can decide to fetch it;
- content is cached for 15 minutes, the cache capped by the size of what it holds;
- the Markdown is cut at 100,000 characters.

A host is resolved once and every address it resolves to is checked: a name that does not look
private (the permission layer let it through an allow rule) must not lead to a private address
(hosts-file names, DNS rebinding), and the connection goes to the checked address — no second
lookup. A host private by its spelling was asked about, so the user chose to fetch it. One fetch
takes at most `FETCH_DEADLINE_S` in all (a slow-loris server cannot hold the turn), at most
`MAX_HTML_BYTES` of HTML is converted, in a thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit, urlunsplit

from wave_tui.config.records import record
from wave_tui.net.addresses import (
    IP,
    UnusableHost,
    is_private_ip,
    is_private_name,
    parse_ip,
    resolve,
)

if TYPE_CHECKING:
    import httpx
    from cachetools import TTLCache

CACHE_TTL_S = 15 * 60
CACHE_MAX_CHARS = 50_000_000  # the cache holds at most this many characters of Markdown
MAX_CONTENT_CHARS = 100_000
MAX_DOWNLOAD_BYTES = 10_000_000
MAX_REDIRECTS = 5
FETCH_TIMEOUT_S = 30.0
FETCH_DEADLINE_S = 60.0  # one fetch, redirects included, whatever the server's pace
# HTML past this is not converted: markdownify's time grows with the page (10 MB: minutes).
MAX_HTML_BYTES = 1_000_000
BINARY_SNIFF_BYTES = 1024
USER_AGENT = "wave-tui WebFetch (+https://github.com/)"
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml", "+json", "+xml")
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


class FetchError(Exception):
    """A fetch that failed: the message is one line for the model."""


@record
class FetchedPage:
    url: str  # the URL finally fetched (after same-host redirects)
    status: int
    content_type: str
    markdown: str
    truncated: bool


@record
class CrossHostRedirect:
    url: str
    location: str
    status: int


FetchOutcome = FetchedPage | CrossHostRedirect


def _ip(host: str) -> IP | None:
    try:
        return parse_ip(host)
    except UnusableHost:
        return None


def is_loopback_host(host: str) -> bool:
    ip = _ip(host)
    return host.lower() in _LOOPBACK_NAMES if ip is None else ip.is_loopback


async def checked_address(host: str, port: int) -> IP:
    """The one address a fetch of `host` connects to, after every address it resolves to was
    checked (see the module)."""
    try:
        addresses = await resolve(host, port)
    except UnusableHost as exc:
        raise FetchError(f"{exc}; not fetched.") from exc
    except OSError as exc:
        raise FetchError(f"{host} could not be resolved: {exc.strerror or exc}.") from exc
    if not addresses:
        raise FetchError(f"{host} could not be resolved.")
    if not is_private_name(host):
        private = [a for a in addresses if is_private_ip(a)]
        if private:
            raise FetchError(
                f"{host} resolves to the private address {private[0]}; not fetched "
                "(ask for the address itself if you mean it)."
            )
    return addresses[0]


def _netloc(ip: IP, port: int) -> str:
    return f"[{ip}]:{port}" if isinstance(ip, ipaddress.IPv6Address) else f"{ip}:{port}"


def normalize_url(url: str) -> str:
    """A valid absolute http(s) URL, upgraded to https unless the host is loopback."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(f"Not an http(s) URL: {url!r}.")
    if parts.username or parts.password:
        raise FetchError("URLs with a user name or password are not fetched.")
    if parts.scheme == "http" and not is_loopback_host(parts.hostname):
        parts = parts._replace(scheme="https")
    return urlunsplit(parts._replace(fragment=""))


def _bare(host: str) -> str:
    host = host.lower()
    return host[4:] if host.startswith("www.") else host


def same_host(a: str, b: str) -> bool:
    pa, pb = urlsplit(a), urlsplit(b)
    return _bare(pa.hostname or "") == _bare(pb.hostname or "") and pa.port == pb.port


# req: WF1
def html_to_markdown(html: str) -> str:
    # markdownify (with bs4 and soupsieve) costs ~60 ms to import: only a fetched page needs it.
    from wave_tui.net.page_markdown import PageConverter

    text = PageConverter(heading_style="ATX").convert(html)
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def _is_text(content_type: str) -> bool:
    return any(marker in content_type for marker in _TEXT_TYPES)


def _page_size(page: FetchedPage) -> int:
    return max(1, len(page.markdown))


class WebFetcher:
    """Owns its HTTP clients and the page cache; `aclose` when the session ends.

    The clients are made at the first fetch: each loads the CA bundle (~25 ms), and most
    sessions never fetch a page."""

    def __init__(
        self, client: httpx.AsyncClient | None = None, *, deadline: float = FETCH_DEADLINE_S
    ) -> None:
        self._given = client
        self._deadline = deadline
        self._clients: dict[bool, httpx.AsyncClient] = {}  # trust_env -> client
        self._pages: TTLCache[str, FetchedPage] | None = None  # made with the first fetch

    # req: WF2
    @property
    def _cache(self) -> TTLCache[str, FetchedPage]:
        if self._pages is None:
            from cachetools import TTLCache

            self._pages = TTLCache(maxsize=CACHE_MAX_CHARS, ttl=CACHE_TTL_S, getsizeof=_page_size)
        return self._pages

    async def fetch(self, url: str) -> FetchOutcome:
        from wave_tui.net.http import (
            httpx,  # with the first fetch: most sessions never fetch a page
        )

        try:
            target = normalize_url(url)
        except ValueError as exc:  # a port out of range, a malformed address
            raise FetchError(f"Not a usable URL: {url!r} ({exc}).") from exc
        cached = self._cache.get(target)
        if cached is not None:
            return cached
        try:
            async with asyncio.timeout(self._deadline):
                return await self._follow(target, httpx.HTTPError)
        except TimeoutError as exc:
            raise FetchError(
                f"Fetching {target} took longer than {self._deadline:g} s; stopped."
            ) from exc

    async def _follow(self, target: str, http_error: type[Exception]) -> FetchOutcome:
        current = target
        for _ in range(MAX_REDIRECTS + 1):
            try:
                outcome = await self._get(current)
            except (http_error, ValueError) as exc:
                raise FetchError(f"Fetching {current} failed: {type(exc).__name__}: {exc}") from exc
            if isinstance(outcome, FetchedPage):
                if len(outcome.markdown) <= CACHE_MAX_CHARS:
                    self._cache[target] = outcome
                return outcome
            if not same_host(current, outcome.location):
                return outcome
            current = normalize_url(outcome.location)
        raise FetchError(f"Too many redirects fetching {target}.")

    async def _get(self, url: str) -> FetchOutcome:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        address = await checked_address(host, port)
        client = self._client_for(host)
        # The checked address itself is connected to; the name goes in Host and TLS SNI.
        direct = urlunsplit(parts._replace(netloc=_netloc(address, port)))
        headers = {"Host": parts.netloc}
        extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
        request = client.build_request("GET", direct, headers=headers, extensions=extensions)
        response = await client.send(request, stream=True)
        try:
            if response.is_redirect and "location" in response.headers:
                location = urljoin(url, response.headers["location"])
                return CrossHostRedirect(url, location, response.status_code)
            if response.status_code >= 400:
                raise FetchError(f"{url} answered HTTP {response.status_code}.")
            content_type = response.headers.get("content-type", "").lower()
            if content_type and not _is_text(content_type):
                raise FetchError(f"{url} is not a text page ({content_type}).")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_DOWNLOAD_BYTES:
                    break
        finally:
            await response.aclose()
        raw = bytes(body[:MAX_DOWNLOAD_BYTES])
        if not content_type and b"\0" in raw[:BINARY_SNIFF_BYTES]:
            raise FetchError(f"{url} is not a text page (binary content, no content type).")
        text = raw.decode(response.encoding or "utf-8", "replace")
        if "html" in content_type or (not content_type and "<html" in text[:1000].lower()):
            html = raw[:MAX_HTML_BYTES].decode(response.encoding or "utf-8", "replace")
            # CPU-bound: in a thread, so the loop still answers Esc and SIGTERM meanwhile.
            text = await asyncio.to_thread(html_to_markdown, html)
        truncated = len(text) > MAX_CONTENT_CHARS
        return FetchedPage(
            url, response.status_code, content_type, text[:MAX_CONTENT_CHARS], truncated
        )

    def _client_for(self, host: str) -> httpx.AsyncClient:
        if self._given is not None:
            return self._given
        # Loopback pages never go through HTTP(S)_PROXY (as for model endpoints).
        trust_env = not is_loopback_host(host)
        client = self._clients.get(trust_env)
        if client is None:
            client = self._clients[trust_env] = _new_client(trust_env=trust_env)
        return client

    async def aclose(self) -> None:
        if self._given is not None:
            await self._given.aclose()
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()


def _new_client(*, trust_env: bool) -> httpx.AsyncClient:
    from wave_tui.net.http import httpx

    return httpx.AsyncClient(
        timeout=FETCH_TIMEOUT_S,
        headers={"User-Agent": USER_AGENT},
        follow_redirects=False,
        trust_env=trust_env,
    )
