"""The SDK's callbacks (004's AgentCallbacks in snake_case), called from the agent's events.

`callbacks` is a dict of name → function or an object with those methods. A callback may be a
plain function or a coroutine function (awaited in a task the agent owns, drained by
`destroy()`). One that raises is reported once on stderr (per callback) and never stops the turn:
a program's bug in a progress printer must not cost it the answer.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sys
from collections.abc import Callable, Mapping
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.llm.types import Usage
from wave_tui.sdk.events import ContentUpdate, ToolBlockUpdate

CALLBACK_NAMES = (
    "on_session_id_change",
    "on_latest_total_tokens_change",
    "on_usages_change",
    "on_user_message_added",
    "on_assistant_message_added",
    "on_assistant_content_updated",
    "on_assistant_reasoning_updated",
    "on_tool_block_updated",
    "on_error_block_added",
    "on_compact_block_added",
    "on_compaction_state_change",
    "on_loading_change",
    "on_queued_messages_change",
    "on_tasks_change",
    "on_subagent_user_message_added",
    "on_subagent_assistant_message_added",
    "on_subagent_assistant_content_updated",
    "on_subagent_latest_total_tokens_change",
    "on_permission_mode_change",
    "on_model_change",
    "on_configured_models_change",
    "on_workdir_change",
    "on_command_running_change",
    "on_background_tasks_change",
    "on_background_current_task",
    "on_mcp_servers_change",
)


def check_callbacks(value: object) -> dict[str, Callable[..., Any]]:
    """The callbacks by name; TypeError / ValueError naming a wrong one."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        items = dict(value)
        unknown = sorted(k for k in items if k not in CALLBACK_NAMES)
        if unknown:
            raise ValueError(
                f"option 'callbacks': unknown callback {unknown[0]!r} (known: {', '.join(CALLBACK_NAMES)})"
            )
    else:
        items = {n: getattr(value, n) for n in CALLBACK_NAMES if hasattr(value, n)}
    for name, fn in items.items():
        if not callable(fn):
            raise TypeError(f"option 'callbacks': {name!r} must be callable")
    return items


# req: SD4
class CallbackDispatcher:
    """Turns the session's events into callback calls; keeps the usages and the session id."""

    def __init__(self, callbacks: dict[str, Callable[..., Any]], session_id: Callable[[], str]):
        self._callbacks = callbacks
        self._session_id = session_id
        self._last_session = session_id()
        # The `logger` option: wave's notices and the program's own failing callbacks go there
        # (without one, failures go to stderr and notices nowhere).
        self.logger: logging.Logger | None = None
        self._tool_args: dict[str, dict[str, Any]] = {}
        self._reported: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.usages: list[Usage] = []
        self._models: list[str] | None = None

    def call(self, name: str, *args: Any) -> None:
        """Call the program's `name` callback, if it gave one, with `args`."""
        fn = self._callbacks.get(name)
        if fn is None:
            return
        try:
            result = fn(*args)
            if inspect.isawaitable(result):
                task = asyncio.ensure_future(self._awaited(name, result))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        except Exception as exc:
            self._report(name, exc)

    async def _awaited(self, name: str, awaitable: Any) -> None:
        try:
            await awaitable
        except Exception as exc:
            self._report(name, exc)

    def _report(self, name: str, exc: Exception) -> None:
        if name in self._reported:
            return
        self._reported.add(name)
        self.say(f"wave: callback {name} raised {type(exc).__name__}: {exc} (the turn goes on)")

    # req: SX2
    def say(self, line: str, level: int = logging.WARNING) -> None:
        """A line for the program: to its logger, else (warnings only) to stderr."""
        if self.logger is not None:
            self.logger.log(level, line)
        elif level >= logging.WARNING:
            print(line, file=sys.stderr, flush=True)

    async def drain(self) -> None:
        """Wait for the async callbacks still running."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def on_event(self, event: ev.AgentEvent) -> None:
        self._dispatch(event)
        self.check_session()

    def check_session(self) -> None:
        """`on_session_id_change` when the session changed (compaction, restore)."""
        current = self._session_id()
        if current != self._last_session:
            self._last_session = current
            self.call("on_session_id_change", current)

    def _dispatch(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.Notice) and self.logger is not None:
            level = logging.WARNING if event.kind in ("warning", "error") else logging.INFO
            self.logger.log(level, event.text)
        elif isinstance(event, ev.UserMessageAdded):
            self.call("on_user_message_added", event.message)
        elif isinstance(event, ev.AssistantStarted):
            self.call("on_assistant_message_added", event.message_id)
        elif isinstance(event, ev.TextDelta):
            self.call(
                "on_assistant_content_updated",
                ContentUpdate(event.message_id, event.text, "streaming"),
            )
        elif isinstance(event, ev.ReasoningDelta):
            self.call(
                "on_assistant_reasoning_updated",
                ContentUpdate(event.message_id, event.text, "streaming"),
            )
        elif isinstance(event, ev.AssistantFinished):
            self.call("on_assistant_content_updated", ContentUpdate(event.message.id, "", "end"))
        elif isinstance(event, ev.ToolStarted):
            self._tool_args[event.call_id] = dict(event.args)
            self.call(
                "on_tool_block_updated",
                ToolBlockUpdate(event.call_id, event.name, dict(event.args), "running"),
            )
        elif isinstance(event, ev.ToolProgress) and event.call_id in self._tool_args:
            args = dict(self._tool_args[event.call_id])
            self.call(
                "on_tool_block_updated",
                ToolBlockUpdate(event.call_id, event.name, args, "running", progress=event.text),
            )
        elif isinstance(event, ev.ToolFinished):
            args = self._tool_args.pop(event.call_id, {})
            self.call(
                "on_tool_block_updated",
                ToolBlockUpdate(
                    event.call_id, event.name, args, "end", event.content, event.is_error
                ),
            )
        elif isinstance(event, ev.UsageUpdated) and event.source == "main":
            self.usages.append(event.usage)
            self.call("on_usages_change", list(self.usages))
            self.call("on_latest_total_tokens_change", event.usage.total_tokens)
        elif isinstance(event, (ev.ErrorOccurred, ev.PromptFailed)):
            text = event.message if isinstance(event, ev.ErrorOccurred) else event.error
            self.call("on_error_block_added", text)
        elif isinstance(event, ev.BackgroundChanged) and event.kind == "compaction":
            self.call("on_compaction_state_change", event.running)
        elif isinstance(event, ev.BusyChanged):
            self.call("on_loading_change", event.busy)
        elif isinstance(event, ev.TasksChanged):
            self.call("on_tasks_change", list(event.tasks))
        elif isinstance(event, ev.SubagentProgress) and event.phase == "text":
            self.call(
                "on_subagent_assistant_content_updated",
                ContentUpdate(event.agent_id, event.text, "streaming"),
            )
        else:
            self._dispatch_more(event)

    # req: SX5
    def _dispatch_more(self, event: ev.AgentEvent) -> None:
        """The subagents' messages and tokens, and a foreground task moved to the background."""
        if isinstance(event, ev.SubagentMessageAdded) and event.role == "user":
            self.call("on_subagent_user_message_added", event.agent_id, event.message)
        elif isinstance(event, ev.SubagentMessageAdded):
            self.call("on_subagent_assistant_message_added", event.agent_id, event.message_id)
        elif isinstance(event, ev.SubagentTokens):
            self.call("on_subagent_latest_total_tokens_change", event.agent_id, event.total_tokens)
        elif isinstance(event, ev.ForegroundChanged) and event.moved:
            self.call("on_background_current_task")

    def configured_models(self, names: list[str]) -> None:
        """`on_configured_models_change` when the configured models differ from the last
        ones seen (the first call only records them)."""
        if self._models is not None and names != self._models:
            self.call("on_configured_models_change", list(names))
        self._models = list(names)

    def compacted(self, summary: str) -> None:
        self.call("on_compact_block_added", summary)
