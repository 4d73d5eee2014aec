"""wave-tui: a terminal coding agent whose heart is memory.

The public Python surface is `__all__` (the SDK, `docs/sdk.md`); every other module may change.
The names load on first use (module `__getattr__`), so `import wave_tui` and `wave --version`
import nothing more than this file and the lazy-export helper, and the SDK never imports Textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wave_tui.config.lazy_exports import lazy_getattr

__version__ = "0.1.0"

if TYPE_CHECKING:
    from wave_tui.agent.turn_queue import AgentDestroyed
    from wave_tui.llm.types import Message, Usage
    from wave_tui.sdk.agent import Agent
    from wave_tui.sdk.agent_extras import McpServerStatus, MemoryRule
    from wave_tui.sdk.agent_state import PermissionCheck
    from wave_tui.sdk.background import BackgroundOutput, BackgroundTaskInfo, ForegroundTask
    from wave_tui.sdk.callbacks import CALLBACK_NAMES
    from wave_tui.sdk.custom_tools import FunctionTool, tool
    from wave_tui.sdk.events import (
        ContentUpdate,
        ErrorEvent,
        ReasoningChunk,
        StreamEvent,
        TextChunk,
        ToolBlockUpdate,
        ToolProgressUpdate,
        ToolResult,
        ToolUse,
        TurnEnd,
    )
    from wave_tui.sdk.message_queue import QueuedMessage
    from wave_tui.sdk.options import OPTION_NAMES
    from wave_tui.sdk.sessions import (
        SessionData,
        SessionMetadata,
        delete_session,
        get_latest_session,
        get_session_file_path,
        list_sessions,
        load_session,
    )
    from wave_tui.sdk.slash_commands import SlashCommand
    from wave_tui.sdk.tool_names import (
        AGENT_TOOL_NAME,
        ASK_USER_QUESTION_TOOL_NAME,
        BASH_TOOL_NAME,
        CRON_CREATE_TOOL_NAME,
        CRON_DELETE_TOOL_NAME,
        CRON_LIST_TOOL_NAME,
        EDIT_TOOL_NAME,
        ENTER_PLAN_MODE_TOOL_NAME,
        ENTER_WORKTREE_TOOL_NAME,
        EXIT_PLAN_MODE_TOOL_NAME,
        EXIT_WORKTREE_TOOL_NAME,
        GLOB_TOOL_NAME,
        GREP_TOOL_NAME,
        LSP_TOOL_NAME,
        READ_TOOL_NAME,
        SKILL_TOOL_NAME,
        TASK_CREATE_TOOL_NAME,
        TASK_GET_TOOL_NAME,
        TASK_LIST_TOOL_NAME,
        TASK_STOP_TOOL_NAME,
        TASK_UPDATE_TOOL_NAME,
        WEB_FETCH_TOOL_NAME,
        WORKFLOW_TOOL_NAME,
        WRITE_TOOL_NAME,
    )
    from wave_tui.sdk.utilities import (
        PromptHistoryManager,
        file_search,
        get_default_remote_branch,
        get_git_common_dir,
        get_git_main_repo_root,
        get_git_repo_root,
        has_new_commits,
        has_uncommitted_changes,
        is_git_repository,
        resolve_git_dir,
    )
    from wave_tui.sdk.workflows import WorkflowRunInfo

# req: SD1
_PUBLIC = {
    "WorkflowRunInfo": "wave_tui.sdk.workflows",
    "Agent": "wave_tui.sdk.agent",
    "AgentDestroyed": "wave_tui.agent.turn_queue",
    "tool": "wave_tui.sdk.custom_tools",
    "FunctionTool": "wave_tui.sdk.custom_tools",
    "OPTION_NAMES": "wave_tui.sdk.options",
    "CALLBACK_NAMES": "wave_tui.sdk.callbacks",
    "TextChunk": "wave_tui.sdk.events",
    "ReasoningChunk": "wave_tui.sdk.events",
    "ToolUse": "wave_tui.sdk.events",
    "ToolProgressUpdate": "wave_tui.sdk.events",
    "ToolResult": "wave_tui.sdk.events",
    "ErrorEvent": "wave_tui.sdk.events",
    "TurnEnd": "wave_tui.sdk.events",
    "StreamEvent": "wave_tui.sdk.events",
    "ContentUpdate": "wave_tui.sdk.events",
    "ToolBlockUpdate": "wave_tui.sdk.events",
    "Message": "wave_tui.llm.types",
    "Usage": "wave_tui.llm.types",
    "SessionMetadata": "wave_tui.sdk.sessions",
    "SessionData": "wave_tui.sdk.sessions",
    "list_sessions": "wave_tui.sdk.sessions",
    "load_session": "wave_tui.sdk.sessions",
    "delete_session": "wave_tui.sdk.sessions",
    "get_latest_session": "wave_tui.sdk.sessions",
    "get_session_file_path": "wave_tui.sdk.sessions",
    "is_git_repository": "wave_tui.sdk.utilities",
    "get_git_repo_root": "wave_tui.sdk.utilities",
    "get_git_common_dir": "wave_tui.sdk.utilities",
    "get_git_main_repo_root": "wave_tui.sdk.utilities",
    "resolve_git_dir": "wave_tui.sdk.utilities",
    "get_default_remote_branch": "wave_tui.sdk.utilities",
    "has_uncommitted_changes": "wave_tui.sdk.utilities",
    "has_new_commits": "wave_tui.sdk.utilities",
    "file_search": "wave_tui.sdk.utilities",
    "PromptHistoryManager": "wave_tui.sdk.utilities",
    "QueuedMessage": "wave_tui.sdk.message_queue",
    "PermissionCheck": "wave_tui.sdk.agent_state",
    "McpServerStatus": "wave_tui.sdk.agent_extras",
    "MemoryRule": "wave_tui.sdk.agent_extras",
    "BackgroundOutput": "wave_tui.sdk.background",
    "BackgroundTaskInfo": "wave_tui.sdk.background",
    "ForegroundTask": "wave_tui.sdk.background",
    "SlashCommand": "wave_tui.sdk.slash_commands",
    "BASH_TOOL_NAME": "wave_tui.sdk.tool_names",
    "READ_TOOL_NAME": "wave_tui.sdk.tool_names",
    "WRITE_TOOL_NAME": "wave_tui.sdk.tool_names",
    "EDIT_TOOL_NAME": "wave_tui.sdk.tool_names",
    "GLOB_TOOL_NAME": "wave_tui.sdk.tool_names",
    "GREP_TOOL_NAME": "wave_tui.sdk.tool_names",
    "LSP_TOOL_NAME": "wave_tui.sdk.tool_names",
    "WEB_FETCH_TOOL_NAME": "wave_tui.sdk.tool_names",
    "ASK_USER_QUESTION_TOOL_NAME": "wave_tui.sdk.tool_names",
    "TASK_CREATE_TOOL_NAME": "wave_tui.sdk.tool_names",
    "TASK_GET_TOOL_NAME": "wave_tui.sdk.tool_names",
    "TASK_UPDATE_TOOL_NAME": "wave_tui.sdk.tool_names",
    "TASK_LIST_TOOL_NAME": "wave_tui.sdk.tool_names",
    "TASK_STOP_TOOL_NAME": "wave_tui.sdk.tool_names",
    "CRON_CREATE_TOOL_NAME": "wave_tui.sdk.tool_names",
    "CRON_DELETE_TOOL_NAME": "wave_tui.sdk.tool_names",
    "CRON_LIST_TOOL_NAME": "wave_tui.sdk.tool_names",
    "ENTER_WORKTREE_TOOL_NAME": "wave_tui.sdk.tool_names",
    "EXIT_WORKTREE_TOOL_NAME": "wave_tui.sdk.tool_names",
    "ENTER_PLAN_MODE_TOOL_NAME": "wave_tui.sdk.tool_names",
    "EXIT_PLAN_MODE_TOOL_NAME": "wave_tui.sdk.tool_names",
    "SKILL_TOOL_NAME": "wave_tui.sdk.tool_names",
    "AGENT_TOOL_NAME": "wave_tui.sdk.tool_names",
    "WORKFLOW_TOOL_NAME": "wave_tui.sdk.tool_names",
}

__all__ = [
    "AGENT_TOOL_NAME",
    "ASK_USER_QUESTION_TOOL_NAME",
    "BASH_TOOL_NAME",
    "CALLBACK_NAMES",
    "CRON_CREATE_TOOL_NAME",
    "CRON_DELETE_TOOL_NAME",
    "CRON_LIST_TOOL_NAME",
    "EDIT_TOOL_NAME",
    "ENTER_PLAN_MODE_TOOL_NAME",
    "ENTER_WORKTREE_TOOL_NAME",
    "EXIT_PLAN_MODE_TOOL_NAME",
    "EXIT_WORKTREE_TOOL_NAME",
    "GLOB_TOOL_NAME",
    "GREP_TOOL_NAME",
    "LSP_TOOL_NAME",
    "OPTION_NAMES",
    "READ_TOOL_NAME",
    "SKILL_TOOL_NAME",
    "TASK_CREATE_TOOL_NAME",
    "TASK_GET_TOOL_NAME",
    "TASK_LIST_TOOL_NAME",
    "TASK_STOP_TOOL_NAME",
    "TASK_UPDATE_TOOL_NAME",
    "WEB_FETCH_TOOL_NAME",
    "WORKFLOW_TOOL_NAME",
    "WRITE_TOOL_NAME",
    "Agent",
    "AgentDestroyed",
    "BackgroundOutput",
    "BackgroundTaskInfo",
    "ContentUpdate",
    "ErrorEvent",
    "ForegroundTask",
    "FunctionTool",
    "McpServerStatus",
    "MemoryRule",
    "Message",
    "PermissionCheck",
    "PromptHistoryManager",
    "QueuedMessage",
    "ReasoningChunk",
    "SessionData",
    "SessionMetadata",
    "SlashCommand",
    "StreamEvent",
    "TextChunk",
    "ToolBlockUpdate",
    "ToolProgressUpdate",
    "ToolResult",
    "ToolUse",
    "TurnEnd",
    "Usage",
    "WorkflowRunInfo",
    "__version__",
    "delete_session",
    "file_search",
    "get_default_remote_branch",
    "get_git_common_dir",
    "get_git_main_repo_root",
    "get_git_repo_root",
    "get_latest_session",
    "get_session_file_path",
    "has_new_commits",
    "has_uncommitted_changes",
    "is_git_repository",
    "list_sessions",
    "load_session",
    "resolve_git_dir",
    "tool",
]


# req: SX11
__getattr__ = lazy_getattr(__name__, _PUBLIC, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
