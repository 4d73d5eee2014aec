"""wave-tui: a terminal coding agent whose heart is memory.

The public Python surface is `__all__` (the SDK, `docs/sdk.md`); every other module may change.
The names load on first use (module `__getattr__`), so `import wave_tui` and `wave --version`
import nothing more than this file, and the SDK never imports Textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from wave_tui.agent.turn_queue import AgentDestroyed
    from wave_tui.llm.types import Message, Usage
    from wave_tui.sdk.agent import Agent
    from wave_tui.sdk.callbacks import CALLBACK_NAMES
    from wave_tui.sdk.custom_tools import FunctionTool, tool
    from wave_tui.sdk.events import (
        ContentUpdate,
        ErrorEvent,
        ReasoningChunk,
        StreamEvent,
        TextChunk,
        ToolBlockUpdate,
        ToolResult,
        ToolUse,
        TurnEnd,
    )
    from wave_tui.sdk.options import OPTION_NAMES
    from wave_tui.sdk.sessions import (
        SessionData,
        SessionMetadata,
        delete_session,
        get_latest_session,
        list_sessions,
        load_session,
    )

# req: SD1
_PUBLIC = {
    "Agent": "wave_tui.sdk.agent",
    "AgentDestroyed": "wave_tui.agent.turn_queue",
    "tool": "wave_tui.sdk.custom_tools",
    "FunctionTool": "wave_tui.sdk.custom_tools",
    "OPTION_NAMES": "wave_tui.sdk.options",
    "CALLBACK_NAMES": "wave_tui.sdk.callbacks",
    "TextChunk": "wave_tui.sdk.events",
    "ReasoningChunk": "wave_tui.sdk.events",
    "ToolUse": "wave_tui.sdk.events",
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
}

__all__ = [
    "CALLBACK_NAMES",
    "OPTION_NAMES",
    "Agent",
    "AgentDestroyed",
    "ContentUpdate",
    "ErrorEvent",
    "FunctionTool",
    "Message",
    "ReasoningChunk",
    "SessionData",
    "SessionMetadata",
    "StreamEvent",
    "TextChunk",
    "ToolBlockUpdate",
    "ToolResult",
    "ToolUse",
    "TurnEnd",
    "Usage",
    "__version__",
    "delete_session",
    "get_latest_session",
    "list_sessions",
    "load_session",
    "tool",
]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'wave_tui' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
