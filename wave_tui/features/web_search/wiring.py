"""The WebSearch tool as a `ToolProvider`: declared only while settings `webSearch` names a
backend, rebuilt when that setting changes, its HTTP client closed with the session (WS1)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from wave_tui.agent.extensions import SessionObserver, ToolProvider
from wave_tui.agent.service import AgentService
from wave_tui.config.schema import WebSearchConfig
from wave_tui.config.settings import EffectiveSettings
from wave_tui.llm.types import Message
from wave_tui.tools.base import Tool


class WebSearchProvider:
    """`ToolProvider` + `SessionObserver`: the WebSearch tool for the backend in force."""

    def __init__(self, settings: Callable[[], EffectiveSettings]) -> None:
        self._settings = settings
        self._config: WebSearchConfig | None = None
        self._tools: list[Tool] = []
        self._retired: list[Tool] = []

    # req: WS1
    def tools(self) -> Sequence[Tool]:
        config = self._settings().web_search
        if config != self._config:
            self._retired.extend(self._tools)
            self._config = config
            self._tools = [] if config is None else [_tool(config)]
        return self._tools

    def on_settings(self, settings: EffectiveSettings) -> None:
        return None

    def on_messages_restored(self, messages: list[Message]) -> None:
        return None

    async def aclose(self) -> None:
        made = [*self._retired, *self._tools]
        if not made:
            return  # never configured: nothing to import or close
        from wave_tui.tools.web_search import WebSearchTool

        for tool in made:
            if isinstance(tool, WebSearchTool):
                await tool.searcher.aclose()


def _tool(config: WebSearchConfig) -> Tool:
    from wave_tui.net.web_search import SearchBackend, WebSearcher  # only once configured
    from wave_tui.tools.web_search import WebSearchTool

    backend = SearchBackend(config.provider, config.url, config.api_key)
    return WebSearchTool(WebSearcher(backend))


def install_web_search(service: AgentService) -> None:
    service.add_extension(
        WebSearchProvider(lambda: service.settings), ToolProvider, SessionObserver
    )
