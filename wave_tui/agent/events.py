"""Events the agent service emits; the TUI and the headless CLI subscribe to them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from wave_tui.agent.status import AgentStatus
from wave_tui.llm.types import Message, Usage
from wave_tui.tools.ask_user import Question, QuestionAnswer
from wave_tui.tools.plan_mode import PlanDecision
from wave_tui.tools.tasks.store import Task

TurnStatus = Literal["completed", "aborted", "error"]
PermissionChoice = Literal["allow_once", "allow_session", "deny"]


@dataclass(frozen=True)
class UserMessageAdded:
    message: Message


@dataclass(frozen=True)
class AssistantStarted:
    message_id: str


@dataclass(frozen=True)
class TextDelta:
    message_id: str
    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    message_id: str
    text: str


@dataclass(frozen=True)
class AssistantFinished:
    message: Message


@dataclass(frozen=True)
class ToolStarted:
    call_id: str
    name: str
    args: dict[str, Any]
    key_arg: str  # the one argument worth showing (path, command, pattern)


@dataclass(frozen=True)
class ToolFinished:
    call_id: str
    name: str
    summary: str
    content: str
    is_error: bool


@dataclass(frozen=True)
class MetaMessageAdded:
    """An isMeta message (rule, nested memory, change notice): hidden in chat, seen by the model."""

    message: Message


@dataclass(frozen=True)
class Notice:
    """A compact, dimmed line for the user (freshness, rule loaded, settings problem...)."""

    kind: str
    text: str


@dataclass(frozen=True)
class UsageUpdated:
    usage: Usage
    model: str
    source: Literal["main", "fork", "compact"] = "main"


@dataclass(frozen=True)
class ErrorOccurred:
    message: str


@dataclass(frozen=True)
class TurnEnded:
    status: TurnStatus
    text: str = ""


@dataclass(frozen=True)
class QueueChanged:
    queued: tuple[str, ...]


@dataclass(frozen=True)
class BusyChanged:
    busy: bool


@dataclass
class PermissionRequested:
    """The service waits on `future`; the UI resolves it with a PermissionChoice."""

    tool_name: str
    args: dict[str, Any]
    reason: str
    future: asyncio.Future[PermissionChoice] = field(repr=False)


@dataclass
class QuestionAsked:
    """AskUserQuestion (AQ1): the tool waits on `future`; the UI resolves it with one
    `QuestionAnswer` per question, or None when the user dismissed the dialog."""

    questions: tuple[Question, ...]
    future: asyncio.Future[tuple[QuestionAnswer, ...] | None] = field(repr=False)


@dataclass
class PlanApprovalRequested:
    """ExitPlanMode (PL2): the plan (already saved to `plan_file`) waits on `future`; the UI
    resolves it with "approve_accept_edits", "approve" or "keep_planning"."""

    plan: str
    plan_file: Path
    future: asyncio.Future[PlanDecision] = field(repr=False)


SubagentPhase = Literal["started", "text", "tool", "finished"]


@dataclass(frozen=True)
class SubagentProgress:
    """A subagent's progress for the collapsible block (AG5): started (text: its type),
    text (a reply's text), tool (the tool name and key argument), finished (text: the
    final text, or the error)."""

    agent_id: str
    description: str
    phase: SubagentPhase
    text: str = ""


@dataclass(frozen=True)
class TasksChanged:
    """The task list changed (TK4: the task panel); deleted tasks are left out."""

    tasks: tuple[Task, ...]


@dataclass(frozen=True)
class BackgroundChanged:
    """Background work (extraction fork, compaction) started or stopped."""

    kind: Literal["extraction", "compaction"]
    running: bool
    detail: str = ""


@dataclass(frozen=True)
class CommandAnswered:
    """A slash command answered locally (not a turn): its text for the user."""

    text: str
    is_error: bool = False


@dataclass(frozen=True)
class StatusChanged:
    """The agent's status changed (busy, usage, queue, background work, settings) (U2)."""

    status: AgentStatus


@dataclass(frozen=True)
class MemoryChanged:
    """Memory files were written or deleted (by the UI, the agent or the extraction fork)."""

    paths: tuple[Path, ...]


@dataclass(frozen=True)
class ExtractionFinished:
    """A background memory extraction ended: what it wrote (file names), or why not."""

    written: tuple[str, ...]
    error: str | None = None
    cancelled: bool = False


AgentEvent = (
    UserMessageAdded
    | AssistantStarted
    | TextDelta
    | ReasoningDelta
    | AssistantFinished
    | ToolStarted
    | ToolFinished
    | MetaMessageAdded
    | Notice
    | UsageUpdated
    | ErrorOccurred
    | TurnEnded
    | QueueChanged
    | BusyChanged
    | PermissionRequested
    | QuestionAsked
    | PlanApprovalRequested
    | SubagentProgress
    | TasksChanged
    | BackgroundChanged
    | CommandAnswered
    | StatusChanged
    | MemoryChanged
    | ExtractionFinished
)
