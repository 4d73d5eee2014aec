"""The HTTP side of WebSearch (WS1, WS2): SearXNG's JSON API, Brave and Tavily, each answer made
into title / URL / snippet results, the domain filters applied.

The backend is the one the user configured (settings `webSearch`), used as configured even on
127.0.0.1: the private-address rule of WebFetch is for URLs the model chooses. A backend that is
down, answers an error or answers HTML instead of JSON is one `SearchError` line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from wave_tui.config.records import record
from wave_tui.net.web_pages import is_loopback_host

if TYPE_CHECKING:
    import httpx

Provider = Literal["searxng", "brave", "tavily"]
SEARCH_TIMEOUT_S = 20.0
MAX_RESULTS = 10
MAX_SNIPPET_CHARS = 400
DEFAULT_URLS: dict[Provider, str] = {
    "brave": "https://api.search.brave.com/res/v1/web/search",
    "tavily": "https://api.tavily.com/search",
}
USER_AGENT = "wave-tui WebSearch"


class SearchError(Exception):
    """A search that failed: the message is one line for the model."""


@record
class SearchResult:
    title: str
    url: str
    snippet: str


@record
class SearchBackend:
    provider: Provider
    url: str | None = None
    api_key: str | None = None

    @property
    def endpoint(self) -> str:
        if self.provider == "searxng":
            base = (self.url or "").rstrip("/")
            return base if base.endswith("/search") else f"{base}/search"
        return self.url or DEFAULT_URLS[self.provider]

    def problem(self) -> str | None:
        """What keeps this backend from working, before any request (None: nothing)."""
        if self.provider == "searxng" and not self.url:
            return (
                "webSearch: provider searxng needs a `url` (its base, e.g. http://127.0.0.1:8888)"
            )
        if self.provider != "searxng" and not self.api_key:
            return f"webSearch: provider {self.provider} needs an `apiKey`"
        return None


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().removeprefix("www.")


def _matches(host: str, domain: str) -> bool:
    domain = domain.strip().lower().removeprefix("www.").strip(".")
    if "://" in domain:
        domain = _host(domain)
    return bool(domain) and (host == domain or host.endswith("." + domain))


# req: WS2
def filter_domains(
    results: Sequence[SearchResult], allowed: Sequence[str], blocked: Sequence[str]
) -> list[SearchResult]:
    """Results whose host is (a subdomain of) an allowed domain, and of no blocked one."""
    out: list[SearchResult] = []
    for result in results:
        host = _host(result.url)
        if allowed and not any(_matches(host, d) for d in allowed):
            continue
        if any(_matches(host, d) for d in blocked):
            continue
        out.append(result)
    return out


def _text(value: Any) -> str:
    return " ".join(str(value).split()) if isinstance(value, str | int | float) else ""


def _results(items: Any, snippet_key: str) -> list[SearchResult]:
    out: list[SearchResult] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("url"), str):
            continue
        snippet = _text(item.get(snippet_key))
        if len(snippet) > MAX_SNIPPET_CHARS:
            snippet = snippet[: MAX_SNIPPET_CHARS - 1] + "…"
        out.append(SearchResult(_text(item.get("title")) or item["url"], item["url"], snippet))
    return out


def parse_answer(provider: Provider, data: Any) -> list[SearchResult]:
    if not isinstance(data, dict):
        raise SearchError(f"the {provider} backend answered JSON without results")
    if provider == "brave":
        web = data.get("web")
        return _results(web.get("results") if isinstance(web, dict) else [], "description")
    return _results(data.get("results"), "content")


class WebSearcher:
    """One backend and its HTTP client (made at the first search; `aclose` at the end)."""

    def __init__(self, backend: SearchBackend) -> None:
        self.backend = backend
        self._client: httpx.AsyncClient | None = None

    # req: WS1
    async def search(
        self, query: str, allowed: Sequence[str] = (), blocked: Sequence[str] = ()
    ) -> list[SearchResult]:
        from wave_tui.net.http import httpx  # with the first search

        backend = self.backend
        problem = backend.problem()
        if problem is not None:
            raise SearchError(problem)
        where = f"the {backend.provider} backend at {backend.endpoint}"
        try:
            response = await self._send(query, allowed, blocked)
        except httpx.HTTPError as exc:
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise SearchError(f"{where} cannot be reached: {detail}") from exc
        if response.status_code >= 400:
            raise SearchError(f"{where} answered HTTP {response.status_code}")
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        try:
            data = json.loads(response.content)
        except ValueError as exc:
            shown = kind or "no content type"
            hint = (
                " (SearXNG answers JSON only with `json` in `search.formats` of its settings.yml)"
                if backend.provider == "searxng"
                else ""
            )
            raise SearchError(f"{where} answered {shown}, not JSON{hint}") from exc
        results = parse_answer(backend.provider, data)
        return filter_domains(results, allowed, blocked)[:MAX_RESULTS]

    async def _send(
        self, query: str, allowed: Sequence[str], blocked: Sequence[str]
    ) -> httpx.Response:
        backend = self.backend
        client = self._http()
        if backend.provider == "searxng":
            return await client.get(backend.endpoint, params={"q": query, "format": "json"})
        if backend.provider == "brave":
            headers = {"X-Subscription-Token": backend.api_key or "", "Accept": "application/json"}
            params = {"q": query, "count": str(MAX_RESULTS)}
            return await client.get(backend.endpoint, params=params, headers=headers)
        body: dict[str, Any] = {"query": query, "max_results": MAX_RESULTS}
        if allowed:
            body["include_domains"] = list(allowed)
        if blocked:
            body["exclude_domains"] = list(blocked)
        headers = {"Authorization": f"Bearer {backend.api_key}"}
        return await client.post(backend.endpoint, json=body, headers=headers)

    def _http(self) -> httpx.AsyncClient:
        from wave_tui.net.http import httpx

        if self._client is None:
            host = urlsplit(self.backend.endpoint).hostname or ""
            self._client = httpx.AsyncClient(
                timeout=SEARCH_TIMEOUT_S,
                headers={"User-Agent": USER_AGENT},
                # A local backend never goes through HTTP(S)_PROXY.
                trust_env=not is_loopback_host(host),
                follow_redirects=True,
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
