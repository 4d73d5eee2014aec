"""The extraction fork's gate for one project's memory folder: the permissions gate plus the
memory rule that credentials are never written (F6)."""

from __future__ import annotations

from typing import Any

from wave_tui.memory.auto_memory import AutoMemoryDir
from wave_tui.memory.secrets import secret_refusal, written_text
from wave_tui.permissions.fork_gate import ForkToolGate

__all__ = ["memory_fork_gate"]


def _no_secrets(tool_name: str, args: dict[str, Any]) -> str | None:
    return secret_refusal(written_text(tool_name, args))


def memory_fork_gate(memory: AutoMemoryDir) -> ForkToolGate:
    return ForkToolGate(memory.path, content_guard=_no_secrets)
