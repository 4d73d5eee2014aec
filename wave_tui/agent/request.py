"""Building the exact request body of a main-loop turn (the extraction fork reuses it verbatim)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from wave_tui.agent.extensions import ContextSource, ContextSourceBase
from wave_tui.agent.prompts import STATIC_SYSTEM_PROMPT, environment_section, language_section
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.settings import EffectiveSettings, resolve_max_output_tokens
from wave_tui.llm.images import without_images
from wave_tui.llm.types import Message, ToolSpec
from wave_tui.llm.wire import WireHistory, mark_last_message, system_message, wire_messages


@record
class SystemPrompt:
    static: str
    dynamic: str


# req: AC2
def build_body(
    *,
    model: str,
    system: SystemPrompt,
    reminder: str | None,
    messages: list[Message],
    tools: list[ToolSpec],
    caching: bool,
    options: dict[str, Any] | None = None,
    max_tokens: int | None = None,
    history: WireHistory | None = None,
) -> dict[str, Any]:
    """The chat-completions body: system first, the transient memory reminder, then history
    (isMeta text folded where it belongs; each of the user's prompts a message of its own).
    With `history`, only what was added since its last body is converted."""
    wire = (
        wire_messages(messages, reminder) if history is None else history.wire(messages, reminder)
    )
    if caching:
        wire = mark_last_message(wire)
    body: dict[str, Any] = {
        "model": model,
        "messages": [system_message(system.static, system.dynamic, cache=caching), *wire],
        "tools": [t.to_wire() for t in tools],
    }
    for key, value in (options or {}).items():
        body.setdefault(key, value)
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    return body


class RequestBuilder:
    """The system prompt (static block + dynamic block, rebuilt only when something it depends
    on changed) and the body of each main-loop request."""

    def __init__(self, paths: WavePaths, session_started: datetime) -> None:
        self.paths = paths
        self.session_started = session_started
        self._key: tuple[Any, ...] | None = None
        self._system: SystemPrompt | None = None
        # The static block; an SDK program's `system_prompt` replaces it for its session.
        self.static_prompt = STATIC_SYSTEM_PROMPT
        self._history = WireHistory()  # a long session converts only its new messages

    def invalidate(self) -> None:
        """AGENTS.md / MEMORY.md are read again (after compaction)."""
        self._system = None

    def system_prompt(
        self, settings: EffectiveSettings, sources: Sequence[ContextSource]
    ) -> SystemPrompt:
        sections_by_source = [source.system_sections(settings) for source in sources]
        key = (settings.language, tuple(tuple(s) for s in sections_by_source))
        if self._system is None or key != self._key:
            parts = [
                environment_section(
                    self.paths.project_root, self.paths.repo_top is not None, self.session_started
                )
            ]
            language = language_section(settings.language)
            if language:
                parts.append(language)
            for sections in sections_by_source:
                parts.extend(sections)
            self._system = SystemPrompt(self.static_prompt, "\n\n".join(parts))
            self._key = key
        return self._system

    # req: IM4
    def build(
        self,
        *,
        model: str,
        settings: EffectiveSettings,
        sources: Sequence[ContextSource],
        messages: list[Message],
        tools: list[ToolSpec],
    ) -> dict[str, Any]:
        reminder_parts = [text for source in sources if (text := source.prepend_reminder())]
        config = settings.model_config_for(model)
        body = build_body(
            model=model,
            system=self.system_prompt(settings, sources),
            reminder="\n\n".join(reminder_parts) if reminder_parts else None,
            messages=messages,
            tools=tools,
            caching=config.capabilities.prompt_caching,
            options=config.options,
            max_tokens=resolve_max_output_tokens(settings, model, None)
            if settings.max_output_tokens is not None
            else None,
            history=self._history,
        )
        if not config.capabilities.vision:
            # The transcript keeps its images; this model gets each one's placeholder.
            body["messages"] = without_images(body["messages"])
        return body


class AppendedSystemPrompt(ContextSourceBase):
    """`--append-system-prompt TEXT`: one more section of the dynamic block (a ContextSource)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        return [self.text]
