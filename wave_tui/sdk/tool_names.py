"""The built-in tools' names as constants (004 §5), so a program never spells them by hand.

Each is the name the tool table gives the tool (`permissions/tool_table.py`, the one home of
these names); `WORKFLOW_TOOL_NAME` names 004's `Workflow` tool, which wave does not have yet
(a rule or a `tools` list naming it matches nothing).
"""

from __future__ import annotations

from typing import Final

from wave_tui.permissions import tool_table as t

BASH_TOOL_NAME: Final = t.BASH
READ_TOOL_NAME: Final = t.READ
WRITE_TOOL_NAME: Final = t.WRITE
EDIT_TOOL_NAME: Final = t.EDIT
GLOB_TOOL_NAME: Final = t.GLOB
GREP_TOOL_NAME: Final = t.GREP
LSP_TOOL_NAME: Final = t.LSP
WEB_FETCH_TOOL_NAME: Final = t.WEB_FETCH
ASK_USER_QUESTION_TOOL_NAME: Final = t.ASK_USER_QUESTION
TASK_CREATE_TOOL_NAME: Final = t.TASK_CREATE
TASK_GET_TOOL_NAME: Final = t.TASK_GET
TASK_UPDATE_TOOL_NAME: Final = t.TASK_UPDATE
TASK_LIST_TOOL_NAME: Final = t.TASK_LIST
TASK_STOP_TOOL_NAME: Final = t.TASK_STOP
CRON_CREATE_TOOL_NAME: Final = t.CRON_CREATE
CRON_DELETE_TOOL_NAME: Final = t.CRON_DELETE
CRON_LIST_TOOL_NAME: Final = t.CRON_LIST
ENTER_WORKTREE_TOOL_NAME: Final = t.ENTER_WORKTREE
EXIT_WORKTREE_TOOL_NAME: Final = t.EXIT_WORKTREE
ENTER_PLAN_MODE_TOOL_NAME: Final = t.ENTER_PLAN_MODE
EXIT_PLAN_MODE_TOOL_NAME: Final = t.EXIT_PLAN_MODE
SKILL_TOOL_NAME: Final = t.SKILL
AGENT_TOOL_NAME: Final = t.AGENT
WORKFLOW_TOOL_NAME: Final = "Workflow"

# The names above, in 004's order (for `wave_tui.__all__` and the docs).
TOOL_NAME_CONSTANTS: Final = (
    "BASH_TOOL_NAME",
    "READ_TOOL_NAME",
    "WRITE_TOOL_NAME",
    "EDIT_TOOL_NAME",
    "GLOB_TOOL_NAME",
    "GREP_TOOL_NAME",
    "LSP_TOOL_NAME",
    "WEB_FETCH_TOOL_NAME",
    "ASK_USER_QUESTION_TOOL_NAME",
    "TASK_CREATE_TOOL_NAME",
    "TASK_GET_TOOL_NAME",
    "TASK_UPDATE_TOOL_NAME",
    "TASK_LIST_TOOL_NAME",
    "TASK_STOP_TOOL_NAME",
    "CRON_CREATE_TOOL_NAME",
    "CRON_DELETE_TOOL_NAME",
    "CRON_LIST_TOOL_NAME",
    "ENTER_WORKTREE_TOOL_NAME",
    "EXIT_WORKTREE_TOOL_NAME",
    "ENTER_PLAN_MODE_TOOL_NAME",
    "EXIT_PLAN_MODE_TOOL_NAME",
    "SKILL_TOOL_NAME",
    "AGENT_TOOL_NAME",
    "WORKFLOW_TOOL_NAME",
)
