"""WebSearch(query, allowed_domains?, blocked_domains?): search the web through the configured
backend and list the results as title, URL and snippet (WS1, WS2). The HTTP is in
`net/web_search.py`; the tool is offered only while settings `webSearch` names a backend."""

from __future__ import annotations

from typing import Annotated

from wave_tui.net.web_search import SearchError, SearchResult, WebSearcher
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult

DESCRIPTION = """\
Search the web and get a list of results: title, URL and a short snippet each.
- query: the search terms.
- allowed_domains: only results from these domains (and their subdomains).
- blocked_domains: never results from these domains.
- Use it for information past your training data or to find the page to read; then read a \
result with WebFetch. Cite the URLs you rely on."""


@tool_arguments
class WebSearchArgs:
    query: Annotated[str, Arg("The search query.")]
    allowed_domains: Annotated[
        tuple[str, ...], Arg("Only include results from these domains.")
    ] = ()
    blocked_domains: Annotated[
        tuple[str, ...], Arg("Never include results from these domains.")
    ] = ()


def format_results(query: str, results: list[SearchResult]) -> str:
    if not results:
        return f'No web results for "{query}".'
    lines = [f'Web search results for "{query}":']
    for number, result in enumerate(results, 1):
        lines += ["", f"{number}. {result.title}", f"   {result.url}"]
        if result.snippet:
            lines.append(f"   {result.snippet}")
    return "\n".join(lines)


# Its tool-table row asks like WebFetch's; `WebSearch` allow / deny rules name it.
# req: WS3
class WebSearchTool(TypedTool[WebSearchArgs]):
    name = "WebSearch"
    description = DESCRIPTION
    read_only = True
    arguments = WebSearchArgs

    def __init__(self, searcher: WebSearcher) -> None:
        self.searcher = searcher

    # req: WS2
    async def call(self, args: WebSearchArgs, ctx: ToolContext) -> ToolResult:
        query = args.query.strip()
        if len(query) < 2:
            raise ToolError("query must be at least 2 characters.")
        try:
            results = await self.searcher.search(query, args.allowed_domains, args.blocked_domains)
        except SearchError as exc:
            raise ToolError(f"WebSearch failed: {exc}") from exc
        count = len(results)
        return ToolResult(
            content=format_results(query, results),
            summary=f"{count} result{'s' * (count != 1)}",
        )
