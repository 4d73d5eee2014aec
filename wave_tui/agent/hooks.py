"""Extension points of the conversation loop. Memory features plug in here, one hook each."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from wave_tui.llm.types import Message
from wave_tui.tools.base import ToolResult

if TYPE_CHECKING:
    from wave_tui.agent.events import TurnStatus
    from wave_tui.config.settings import EffectiveSettings


class AgentHook:
    """No-op base. Every method is called by the service at a fixed point of the loop."""

    def status(self) -> dict[str, Any]:
        """Facts for the status line (e.g. {"turns_until_extraction": 2})."""
        return {}

    def on_settings(self, settings: EffectiveSettings) -> None:
        """Settings in force for the turn that is starting (called at every turn start)."""

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        """Sections of the dynamic system block. Must be stable while settings are unchanged."""
        return []

    def prepend_reminder(self) -> str | None:
        """Transient text for the `<system-reminder>` user message at the start (never persisted)."""
        return None

    def before_request(self) -> list[Message]:
        """isMeta messages to append (and persist) before the next model request."""
        return []

    def before_tool(self, name: str, args: dict[str, Any]) -> str | None:
        """A refusal (sent back to the model) for a call that must not run; None to go on."""
        return None

    def tool_lock(self, name: str, args: dict[str, Any]) -> AbstractContextManager[None] | None:
        """A lock to hold while the tool runs (e.g. a memory file shared between agents)."""
        return None

    def transform_tool_result(
        self, name: str, args: dict[str, Any], result: ToolResult
    ) -> ToolResult:
        return result

    def after_tools(self, name: str, args: dict[str, Any], result: ToolResult) -> list[Message]:
        """isMeta messages to append once all tool results of the round are in."""
        return []

    def on_messages_restored(self, messages: list[Message]) -> None:
        """A session was resumed (or compacted): rebuild state from the surviving messages."""

    async def on_turn_end(self, status: TurnStatus) -> None:
        """A main-agent turn ended (completed / aborted / error)."""

    async def aclose(self) -> None:
        """The service is being destroyed: finish background work."""
