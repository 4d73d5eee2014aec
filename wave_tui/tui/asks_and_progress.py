"""The app side of the agent's questions and work events: the permission, plan and question
dialogs that answer a future, the task panel, the subagent blocks and the progress of a running
tool's row in the chat.
`WaveApp.on_agent_event_posted` hands these events here."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen

from wave_tui.agent import events as ev
from wave_tui.config.paths import WavePaths
from wave_tui.session.facade import AgentSession, key_argument
from wave_tui.tui.format import show_key_arg
from wave_tui.tui.widgets.chat_items import ToolBlock
from wave_tui.tui.widgets.subagent_block import SubagentBlock
from wave_tui.tui.widgets.task_panel import TaskPanel

AskOrProgress = (
    ev.QuestionAsked
    | ev.PlanApprovalRequested
    | ev.ElicitationRequested
    | ev.SubagentProgress
    | ev.TasksChanged
    | ev.ToolProgress
)
ASK_OR_PROGRESS_EVENTS = (
    ev.QuestionAsked,
    ev.PlanApprovalRequested,
    ev.ElicitationRequested,
    ev.SubagentProgress,
    ev.TasksChanged,
    ev.ToolProgress,
)


def _ask(
    app: App[Any],
    dialog: ModalScreen[Any],
    future: asyncio.Future[Any],
    default: Any,
    then: Callable[[], None] | None = None,
) -> None:
    def answered(value: Any) -> None:
        if not future.done():
            future.set_result(default if value is None and default is not None else value)
        if then is not None:
            then()

    def gone(_future: asyncio.Future[Any]) -> None:
        # The turn was aborted while the dialog was open.
        if dialog.is_attached and dialog is app.screen:
            dialog.dismiss(None)

    future.add_done_callback(gone)
    app.push_screen(dialog, answered)


async def ask_permission(
    app: App[Any], session: AgentSession, paths: WavePaths, event: ev.PermissionRequested
) -> None:
    """The permission dialog for `event`, answering its future (a denial when dismissed)."""
    from wave_tui.tui.screens.dialogs import PermissionDialog

    tool, args = event.tool_name, event.args
    dialog = PermissionDialog(
        tool,
        show_key_arg(key_argument(tool, args), paths),
        event.reason,
        grants=session.permissions.grant_options(tool, args),
        preview=await session.permissions.preview(tool, args),
        agent=event.agent,
    )
    if event.future.done():
        return  # aborted while the preview was read

    # req: FH3
    def stop_if_asked() -> None:
        if dialog.stops_turn:  # the refusal is recorded first, then the turn stops
            session.abort()

    _ask(app, dialog, event.future, ev.PermissionAnswer("deny"), stop_if_asked)


async def apply_ask_or_progress(app: App[Any], chat: Screen[Any], event: AskOrProgress) -> None:
    if isinstance(event, ev.QuestionAsked):
        from wave_tui.tui.screens.plan_question_dialogs import QuestionDialog

        _ask(app, QuestionDialog(event.questions), event.future, None)
    elif isinstance(event, ev.PlanApprovalRequested):
        from wave_tui.tui.screens.plan_question_dialogs import PlanDialog

        _ask(app, PlanDialog(event.plan, event.plan_file.name), event.future, "keep_planning")
    elif isinstance(event, ev.ElicitationRequested):
        from wave_tui.tui.screens.elicitation_dialog import ElicitationDialog

        dialog = ElicitationDialog(event.server, event.message, event.schema)
        _ask(app, dialog, event.future, ev.ElicitationAnswer("cancel"))
    elif not chat.is_mounted:
        return
    elif isinstance(event, ev.TasksChanged):
        chat.query_one(TaskPanel).show_tasks(event.tasks)
    elif isinstance(event, ev.ToolProgress):
        _tool_progress(chat, event)
    else:
        await _subagent(chat, event)


async def _subagent(chat: Screen[Any], event: ev.SubagentProgress) -> None:
    block = next((b for b in chat.query(SubagentBlock) if b.agent_id == event.agent_id), None)
    if block is None:
        block = SubagentBlock(event.agent_id, event.description)
        log = chat.query_one("#chat-log", VerticalScroll)
        await log.mount(block)
        log.scroll_end(animate=False)
    block.apply(event)


# req: MA4
def _tool_progress(chat: Screen[Any], event: ev.ToolProgress) -> None:
    """The line goes on the row of its call while it runs; a call with no row of its own (a
    subagent's, a nested `Exec` call) shows none."""
    rows = [b for b in chat.query(ToolBlock) if b.call_id == event.call_id]
    if rows and rows[-1].has_class("-running"):
        rows[-1].progress(event.text)
