"""WebFetch(url, prompt): fetch a page and have the fast model answer `prompt` over it (WF1).

The fetch itself lives in `net/web_pages.py` (all HTTP is there); the answer comes from an
injected `answer(prompt, markdown)` the integrator binds to the fast model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from wave_tui.net.web_pages import CrossHostRedirect, FetchError, WebFetcher
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult

Answer = Callable[[str, str], Awaitable[str]]

DESCRIPTION = """\
Fetch a web page (http or https; http is upgraded to https) and answer a question about it.
The page is converted from HTML to Markdown, and a small fast model reads it and answers your \
prompt; the result is that answer, not the raw page. Results are cached for 15 minutes.
- url: a fully formed URL.
- prompt: what you want to know from the page.
- A redirect to a different host is not followed: you are told the new URL and can fetch it.
- For GitHub content prefer the `gh` CLI through Bash."""

ANSWER_INSTRUCTIONS = """\
Web page content:
---
{content}
---

{prompt}

Answer from the content above only. Be concise; quote exactly where wording matters and keep \
quotes short. If the content does not answer the question, say so."""


def answer_request(prompt: str, markdown: str) -> str:
    """The user message for the fast model (the integrator's `answer` may use it as is)."""
    return ANSWER_INSTRUCTIONS.format(content=markdown, prompt=prompt)


@tool_arguments
class WebFetchArgs:
    url: Annotated[str, Arg("The URL to fetch.")]
    prompt: Annotated[str, Arg("What to find out from the page.")]


class WebFetchTool(TypedTool[WebFetchArgs]):
    name = "WebFetch"
    description = DESCRIPTION
    read_only = True
    arguments = WebFetchArgs

    def __init__(self, fetcher: WebFetcher, answer: Answer) -> None:
        self.fetcher = fetcher
        self.answer = answer

    # req: WF3
    async def call(self, args: WebFetchArgs, ctx: ToolContext) -> ToolResult:
        url = args.url.strip()
        prompt = args.prompt.strip()
        if not prompt:
            raise ToolError("prompt must not be empty.")
        try:
            outcome = await self.fetcher.fetch(url)
        except FetchError as exc:
            raise ToolError(str(exc)) from exc
        if isinstance(outcome, CrossHostRedirect):
            return ToolResult(
                content=(
                    f"{outcome.url} redirects (HTTP {outcome.status}) to a different host: "
                    f"{outcome.location}\nTo fetch it, call WebFetch again with that URL."
                ),
                summary=f"Redirected to {outcome.location}",
            )
        markdown = outcome.markdown
        if outcome.truncated:
            markdown += "\n\n[content truncated at 100,000 characters]"
        reply = await self.answer(prompt, markdown)
        return ToolResult(
            content=reply, summary=f"Fetched {outcome.url} ({len(outcome.markdown)} chars)"
        )
