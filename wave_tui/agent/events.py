"""Events the agent service emits; the TUI and the headless CLI subscribe to them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from wave_tui.agent.status import AgentStatus
from wave_tui.config.records import record
from wave_tui.llm.types import Message, Usage

# The permission reply is the policy's word (it applies it); the UI names it from here.
from wave_tui.permissions.policy import GrantKind as GrantKind
from wave_tui.permissions.policy import PermissionAnswer as PermissionAnswer
from wave_tui.permissions.policy import PermissionChoice as PermissionChoice
from wave_tui.permissions.policy import PermissionReply as PermissionReply
from wave_tui.tools.ask_user import Question, QuestionAnswer
from wave_tui.tools.plan_mode import PlanDecision
from wave_tui.tools.tasks.store import Task

TurnStatus = Literal["completed", "aborted", "error"]
# How a `!cmd` run ended: by itself, killed at the timeout, or stopped by the user (Esc).
ShellEnding = Literal["exited", "timed out", "interrupted"]


@record
class UserMessageAdded:
    message: Message


@record
class AssistantStarted:
    message_id: str


@record
class TextDelta:
    message_id: str
    text: str


@record
class ReasoningDelta:
    message_id: str
    text: str


@record
class AssistantFinished:
    message: Message


@record
class ToolStarted:
    call_id: str
    name: str
    args: dict[str, Any]
    key_arg: str  # the one argument worth showing (path, command, pattern)


@record
class ToolFinished:
    call_id: str
    name: str
    summary: str
    content: str
    is_error: bool
    diff: str = ""  # the change an Edit/Write made, as a unified diff (for the chat only)


@record
class ToolProgress:
    """A running tool's latest progress line (an MCP server's `notifications/progress`), shown
    on the row of that tool's call until the call ends. `name` is the tool as the model calls
    it (`mcp__server__tool`); `call_id` the model's call ("" for a call it did not make itself,
    such as a nested `Exec` call's)."""

    name: str
    text: str
    call_id: str = ""


@record
class MetaMessageAdded:
    """An isMeta message (rule, nested memory, change notice): hidden in chat, seen by the model."""

    message: Message


@record
class Notice:
    """A compact, dimmed line for the user (freshness, rule loaded, settings problem...)."""

    kind: str
    text: str


@record
class UsageUpdated:
    usage: Usage
    model: str
    source: Literal["main", "fork", "compact"] = "main"


@record
class ErrorOccurred:
    message: str


@record
class PromptFailed:
    """The request for a prompt failed before the model answered (after its retries): the
    prompt is out of the conversation; the front end puts `text` back in the input to edit."""

    text: str
    error: str


@record
class TurnEnded:
    status: TurnStatus
    text: str = ""


@record
class QueueChanged:
    queued: tuple[str, ...]


@record
class BusyChanged:
    busy: bool


@record
class AskingAgent:
    """The subagent a permission question comes from: its type and the task's description."""

    agent_type: str
    description: str


@record(frozen=False)
class PermissionRequested:
    """The service waits on `future`; the UI resolves it with a PermissionReply."""

    tool_name: str
    args: dict[str, Any]
    reason: str
    future: asyncio.Future[PermissionReply] = field(repr=False)
    agent: AskingAgent | None = None  # None: the main agent asks


@record(frozen=False)
class QuestionAsked:
    """AskUserQuestion (AQ1): the tool waits on `future`; the UI resolves it with one
    `QuestionAnswer` per question, or None when the user dismissed the dialog."""

    questions: tuple[Question, ...]
    future: asyncio.Future[tuple[QuestionAnswer, ...] | None] = field(repr=False)


@record(frozen=False)
class PlanApprovalRequested:
    """ExitPlanMode (PL2): the plan (already saved to `plan_file`) waits on `future`; the UI
    resolves it with "approve_accept_edits", "approve" or "keep_planning"."""

    plan: str
    plan_file: Path
    future: asyncio.Future[PlanDecision] = field(repr=False)


@record
class ElicitationAnswer:
    """The user's answer to an MCP server's form: the values when accepted."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


@record(frozen=False)
class ElicitationRequested:
    """An MCP server asks the user for values (MA3): `schema` is the form's JSON schema (flat
    properties with `title`, `description`, `default`); the UI resolves `future`."""

    server: str
    message: str
    schema: dict[str, Any]
    future: asyncio.Future[ElicitationAnswer] = field(repr=False)


SubagentPhase = Literal["started", "text", "tool", "finished"]


@record
class SubagentProgress:
    """A subagent's progress for the collapsible block (AG5): started (text: its type),
    text (a reply's text), tool (the tool name and key argument), finished (text: the
    final text, or the error)."""

    agent_id: str
    description: str
    phase: SubagentPhase
    text: str = ""


@record
class SubagentMessageAdded:
    """A message joined a subagent's own conversation: its task ("user", with the message) or
    a reply it began ("assistant", the id only: the text comes as `SubagentProgress`)."""

    agent_id: str
    role: Literal["user", "assistant"]
    message_id: str
    message: Message | None = None


@record
class SubagentTokens:
    """The total tokens of a subagent's last model request."""

    agent_id: str
    total_tokens: int


@record
class ForegroundChanged:
    """What runs in the foreground and could move to the background (Ctrl+B) changed:
    `label` is the current one's, None when nothing can move; `moved` when one just did."""

    label: str | None
    moved: bool = False


@record
class TasksChanged:
    """The task list changed (TK4: the task panel); deleted tasks are left out."""

    tasks: tuple[Task, ...]


@record
class BackgroundChanged:
    """Background work (extraction fork, compaction) started or stopped."""

    kind: Literal["extraction", "compaction"]
    running: bool
    detail: str = ""


@record
class ShellStarted:
    """A `!cmd` run began (CV8): it runs as a queued turn, off the UI's loop."""

    run_id: str
    command: str


@record
class ShellOutput:
    """Output of a running `!cmd`, as it arrives (not split at line ends)."""

    run_id: str
    text: str


@record
class ShellFinished:
    """A `!cmd` run ended; its `UserMessageAdded` (what the model gets) follows."""

    run_id: str
    command: str
    output: str
    exit_code: int | None  # None: it did not exit by itself
    ending: ShellEnding


@record
class BackgroundCommandFinished:
    """A background command (Bash run_in_background) finished by itself; the model is told
    before its next request, the user at once."""

    task_id: str
    label: str
    exit_code: int | None


@record
class CommandAnswered:
    """A slash command answered locally (not a turn): its text for the user."""

    text: str
    is_error: bool = False


@record
class StatusChanged:
    """The agent's status changed (busy, usage, queue, background work, settings) (U2)."""

    status: AgentStatus


# Who wrote memory: the main agent's tools, the extraction fork, the user (app, `wave memory`).
MemoryWriteSource = Literal["main", "fork", "user"]


@record
class RuleViolated:
    """The rule check found a call that breaks a rule in force (`ruleCheck`)."""

    rule_id: str
    tool: str
    check: str  # "turn": after the turn; "write": before the call, which then asks


@record
class MemoryChanged:
    """Memory files were written or deleted (by the UI, the agent or the extraction fork)."""

    paths: tuple[Path, ...]
    source: MemoryWriteSource = "user"


@record
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
    | ToolProgress
    | MetaMessageAdded
    | Notice
    | UsageUpdated
    | ErrorOccurred
    | PromptFailed
    | TurnEnded
    | QueueChanged
    | BusyChanged
    | PermissionRequested
    | QuestionAsked
    | PlanApprovalRequested
    | ElicitationRequested
    | SubagentProgress
    | SubagentMessageAdded
    | SubagentTokens
    | ForegroundChanged
    | TasksChanged
    | BackgroundChanged
    | ShellStarted
    | ShellOutput
    | ShellFinished
    | BackgroundCommandFinished
    | CommandAnswered
    | StatusChanged
    | MemoryChanged
    | RuleViolated
    | ExtractionFinished
)

# What every part of the loop is handed to announce an event.
Emit = Callable[[AgentEvent], None]

# The events that tell a conversation's turn as it goes: the messages, their text as it streams,
# each tool call's start and end, the notices and the turn's end. Every front end that shows a
# turn live follows these (the app's chat, a `wave daemon` client).
TURN_EVENTS: tuple[type[AgentEvent], ...] = (
    UserMessageAdded,
    AssistantStarted,
    TextDelta,
    ReasoningDelta,
    AssistantFinished,
    ToolStarted,
    ToolFinished,
    Notice,
    ErrorOccurred,
    TurnEnded,
    CommandAnswered,
)
