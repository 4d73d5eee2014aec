"""The data types the front ends (`tui`, `cli`) share with the session: one leaf module.

Records, literals, errors and constants only, no behaviour. Each name is imported from its home
when first asked for (the module's `__getattr__`), so importing this module loads nothing: `wave
-p` never pays for what only the app's screens use (a test checks which modules a plain turn
loads). The names are listed once, in `_HOMES`; `__all__` and the type checker's imports follow it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wave_tui.config.lazy_exports import lazy_getattr

if TYPE_CHECKING:
    from wave_tui.agent.agent_options import AgentOptions
    from wave_tui.agent.commands import CommandResult
    from wave_tui.agent.compaction import CompactionPreview
    from wave_tui.agent.compaction_flow import PreparedCompaction
    from wave_tui.agent.local_shell import ShellRun
    from wave_tui.agent.service import AgentService, TurnResult
    from wave_tui.agent.session_files import SessionInfo
    from wave_tui.agent.status import AgentStatus
    from wave_tui.config.modes import PERMISSION_MODES, PermissionMode
    from wave_tui.config.trust import NOT_TRUSTED_YET, TrustRequested
    from wave_tui.features.memory.context_report import ContextReport
    from wave_tui.llm.types import Message
    from wave_tui.memory.consolidation import ConsolidationPlan
    from wave_tui.permissions.policy import GrantOption
    from wave_tui.permissions.tool_table import PATH_LISTING_TOOLS
    from wave_tui.session.completion import CommandChoice
    from wave_tui.session.connection_check import ConnectionCheck
    from wave_tui.session.editable_settings import EditableSettings
    from wave_tui.session.endpoint_settings import EndpointInUse, EndpointSettings, SettingInUse
    from wave_tui.session.local_endpoint import (
        LocalEndpoint,
        LocalModelError,
        LocalPlan,
        LocalUnavailable,
    )
    from wave_tui.session.memory_access import (
        AddResult,
        ChangedRef,
        EntryError,
        InboxError,
        MemoryEntry,
        MemoryScope,
        PendingWrite,
        RevertResult,
        Run,
        RunError,
    )
    from wave_tui.session.memory_check import CheckError
    from wave_tui.session.memory_consolidate import Consolidated
    from wave_tui.session.memory_review import ReviewError
    from wave_tui.session.model_menu import ModelChoice, ModelMenu
    from wave_tui.session.permission_preview import PermissionPreview
    from wave_tui.session.permission_state import PermissionState
    from wave_tui.session.plugins import MarketRow, OfferedPlugin, PluginError, PluginRow
    from wave_tui.session.rewind import (
        BASH_NOTE,
        KEPT_NOTE,
        CodeRewind,
        FileRestore,
        OtherProjectSession,
        RewindError,
        RewindMode,
        RewindOutcome,
        RewindPoint,
        SessionDetail,
        SessionInUse,
        SessionRow,
        UnknownSession,
    )
    from wave_tui.session.run_report import RunInfo, RunReport, RunUsage
    from wave_tui.session.session_summaries import SessionSummary
    from wave_tui.tools.ask_user import Question, QuestionAnswer, QuestionOption
    from wave_tui.tools.plan_mode import PlanDecision
    from wave_tui.tools.tasks.store import Task

# Where each name lives.
_HOMES = {
    "AgentOptions": "wave_tui.agent.agent_options",
    "CommandResult": "wave_tui.agent.commands",
    "PreparedCompaction": "wave_tui.agent.compaction_flow",
    "CompactionPreview": "wave_tui.agent.compaction",
    "ShellRun": "wave_tui.agent.local_shell",
    "AgentService": "wave_tui.agent.service",
    "TurnResult": "wave_tui.agent.service",
    "SessionInfo": "wave_tui.agent.session_files",
    "AgentStatus": "wave_tui.agent.status",
    "PERMISSION_MODES": "wave_tui.config.modes",
    "PermissionMode": "wave_tui.config.modes",
    "NOT_TRUSTED_YET": "wave_tui.config.trust",
    "TrustRequested": "wave_tui.config.trust",
    "ContextReport": "wave_tui.features.memory.context_report",
    "Message": "wave_tui.llm.types",
    "GrantOption": "wave_tui.permissions.policy",
    "PATH_LISTING_TOOLS": "wave_tui.permissions.tool_table",
    "EditableSettings": "wave_tui.session.editable_settings",
    "EndpointInUse": "wave_tui.session.endpoint_settings",
    "EndpointSettings": "wave_tui.session.endpoint_settings",
    "SettingInUse": "wave_tui.session.endpoint_settings",
    "LocalEndpoint": "wave_tui.session.local_endpoint",
    "LocalModelError": "wave_tui.session.local_endpoint",
    "LocalPlan": "wave_tui.session.local_endpoint",
    "LocalUnavailable": "wave_tui.session.local_endpoint",
    "AddResult": "wave_tui.session.memory_access",
    "ChangedRef": "wave_tui.session.memory_access",
    "EntryError": "wave_tui.session.memory_access",
    "InboxError": "wave_tui.session.memory_access",
    "MemoryEntry": "wave_tui.session.memory_access",
    "MemoryScope": "wave_tui.session.memory_access",
    "PendingWrite": "wave_tui.session.memory_access",
    "RevertResult": "wave_tui.session.memory_access",
    "Run": "wave_tui.session.memory_access",
    "RunError": "wave_tui.session.memory_access",
    "ReviewError": "wave_tui.session.memory_review",
    "MarketRow": "wave_tui.session.plugins",
    "OfferedPlugin": "wave_tui.session.plugins",
    "PluginError": "wave_tui.session.plugins",
    "PluginRow": "wave_tui.session.plugins",
    "BASH_NOTE": "wave_tui.session.rewind",
    "KEPT_NOTE": "wave_tui.session.rewind",
    "CodeRewind": "wave_tui.session.rewind",
    "FileRestore": "wave_tui.session.rewind",
    "OtherProjectSession": "wave_tui.session.rewind",
    "RewindError": "wave_tui.session.rewind",
    "RewindMode": "wave_tui.session.rewind",
    "RewindOutcome": "wave_tui.session.rewind",
    "RewindPoint": "wave_tui.session.rewind",
    "SessionDetail": "wave_tui.session.rewind",
    "SessionInUse": "wave_tui.session.rewind",
    "SessionRow": "wave_tui.session.rewind",
    "UnknownSession": "wave_tui.session.rewind",
    "CheckError": "wave_tui.session.memory_check",
    "Consolidated": "wave_tui.session.memory_consolidate",
    "ConsolidationPlan": "wave_tui.memory.consolidation",
    "RunInfo": "wave_tui.session.run_report",
    "RunReport": "wave_tui.session.run_report",
    "RunUsage": "wave_tui.session.run_report",
    "CommandChoice": "wave_tui.session.completion",
    "ConnectionCheck": "wave_tui.session.connection_check",
    "ModelChoice": "wave_tui.session.model_menu",
    "ModelMenu": "wave_tui.session.model_menu",
    "PermissionPreview": "wave_tui.session.permission_preview",
    "PermissionState": "wave_tui.session.permission_state",
    "SessionSummary": "wave_tui.session.session_summaries",
    "Question": "wave_tui.tools.ask_user",
    "QuestionAnswer": "wave_tui.tools.ask_user",
    "QuestionOption": "wave_tui.tools.ask_user",
    "PlanDecision": "wave_tui.tools.plan_mode",
    "Task": "wave_tui.tools.tasks.store",
}


__getattr__ = lazy_getattr(__name__, _HOMES, globals())


__all__ = [
    "BASH_NOTE",
    "KEPT_NOTE",
    "NOT_TRUSTED_YET",
    "PATH_LISTING_TOOLS",
    "PERMISSION_MODES",
    "AddResult",
    "AgentOptions",
    "AgentService",
    "AgentStatus",
    "ChangedRef",
    "CheckError",
    "CodeRewind",
    "CommandChoice",
    "CommandResult",
    "CompactionPreview",
    "ConnectionCheck",
    "Consolidated",
    "ConsolidationPlan",
    "ContextReport",
    "EditableSettings",
    "EndpointInUse",
    "EndpointSettings",
    "EntryError",
    "FileRestore",
    "GrantOption",
    "InboxError",
    "LocalEndpoint",
    "LocalModelError",
    "LocalPlan",
    "LocalUnavailable",
    "MarketRow",
    "MemoryEntry",
    "MemoryScope",
    "Message",
    "ModelChoice",
    "ModelMenu",
    "OfferedPlugin",
    "OtherProjectSession",
    "PendingWrite",
    "PermissionMode",
    "PermissionPreview",
    "PermissionState",
    "PlanDecision",
    "PluginError",
    "PluginRow",
    "PreparedCompaction",
    "Question",
    "QuestionAnswer",
    "QuestionOption",
    "RevertResult",
    "ReviewError",
    "RewindError",
    "RewindMode",
    "RewindOutcome",
    "RewindPoint",
    "Run",
    "RunError",
    "RunInfo",
    "RunReport",
    "RunUsage",
    "SessionDetail",
    "SessionInUse",
    "SessionInfo",
    "SessionRow",
    "SessionSummary",
    "SettingInUse",
    "ShellRun",
    "Task",
    "TrustRequested",
    "TurnResult",
    "UnknownSession",
]
