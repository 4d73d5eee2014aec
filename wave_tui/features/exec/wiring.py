"""Exec plugged into a session: the MCP wiring's flat tools folded into the one Exec tool while
the pool is not empty and settings `enableExec` is not false, and the catalog sent as a tail
isMeta message before a request whenever its text changed (or the history lost it).

The engine is imported on the first script run, never here: a session that never runs one
costs the few lines of this module.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.agent.extensions import ContextSource, ContextSourceBase, ToolCallInfo
from wave_tui.agent.service import AgentService
from wave_tui.agent.tool_executor import calling_site
from wave_tui.features.exec.catalog import POOL_EMPTY, render_catalog
from wave_tui.features.exec.tool import ExecTool, Undeclared
from wave_tui.features.mcp.wiring import McpWiring
from wave_tui.llm.types import Message
from wave_tui.tools.base import Tool, ToolResult

CATALOG_META = "execCatalog"


class ExecFeature(ContextSourceBase):
    """ContextSource (the catalog) and the MCP wiring's `gather` (the flat tools folded)."""

    def __init__(self, service: AgentService, mcp: McpWiring) -> None:
        self._service = service
        self._mcp = mcp
        self.tool = ExecTool(self._callable, self._run_leaf)
        # The history as far as it was searched for a catalog: how many messages, the last of
        # them, the catalog found. A long session searches only its new messages.
        self._searched: tuple[int, Message | None, str | None] = (0, None, None)

    def pool(self) -> list[Tool]:
        """The MCP tools the agent could call directly: the same source as the flat ones."""
        manager = self._mcp.manager
        return manager.tools() if manager is not None else []

    # req: EX3
    def _callable(self) -> list[Tool]:
        """The leaves a script may call: those the agent running Exec has (a subagent's
        declared tools, an SDK program's offered ones), never the whole pool."""
        site = calling_site()
        pool = self.pool()
        return pool if site is None else [t for t in pool if t.name in site.tools]

    def enabled(self) -> bool:  # req: EX5
        return self._service.settings.enable_exec

    # req: EX1
    def gather(self, flat: list[Tool]) -> list[Tool]:
        """What the MCP wiring offers instead of `flat` (its `mcp__*` tools)."""
        if not flat or not self.enabled():
            return flat
        return [self.tool, *(Undeclared(t) for t in flat)]

    # req: EX1
    def before_request(self) -> list[Message]:
        """The catalog when its text differs from the last one the history holds (an empty pool
        is said once, after a catalog)."""
        if not self.enabled():
            return []
        last = self._last_catalog()
        pool = self.pool()
        if not pool and last in (None, POOL_EMPTY):
            return []
        text = render_catalog(pool)
        if text == last:
            return []
        return [Message.user(text, is_meta=True, **{CATALOG_META: True})]

    def _last_catalog(self) -> str | None:
        messages = self._service.messages
        count, last_seen, found = self._searched
        if count > len(messages) or (count and messages[count - 1] is not last_seen):
            count, found = 0, None  # a new history (rewind, compaction, resume): search it all
        for message in messages[count:]:
            if message.meta.get(CATALOG_META):
                found = message.content
        self._searched = (len(messages), messages[-1] if messages else None, found)
        return found

    # req: EX3
    async def _run_leaf(
        self, name: str, args: dict[str, Any], pool: Sequence[Tool], abort: asyncio.Event
    ) -> ToolResult:
        """One nested call as the leaf itself, down the pipeline of the agent running Exec (a
        subagent's mode and grants): hooks, guards, the rules (their identity is the leaf's
        `mcp__server__tool` name), the question."""
        site = calling_site()
        pipeline = self._service.executor.pipeline if site is None else site.pipeline
        call = ToolCallInfo.of(f"exec-{uuid.uuid4().hex[:12]}", name, args, pipeline.workdir)
        outcome = await pipeline.run_call(call, {t.name: t for t in pool}, abort)
        result = outcome.result
        pipeline.emit(
            ev.ToolFinished(
                call.call_id, name, result.summary, result.content, result.is_error, result.diff
            )
        )
        return result


def install_exec(service: AgentService, mcp: McpWiring) -> ExecFeature:
    feature = ExecFeature(service, mcp)
    mcp.gather = feature.gather
    service.add_extension(feature, ContextSource)
    return feature
