"""Which tool calls the extraction fork may run (F5–F7).

Reads anywhere; Bash only when read-only; Write/Edit only on real paths inside the memory dir;
everything else refused. A refusal names what is allowed, so the model can carry on.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wave_tui.memory.auto_memory import AutoMemoryDir
from wave_tui.memory.secrets import secret_refusal, written_text

READ_TOOLS = frozenset({"Read", "Grep", "Glob"})
WRITE_TOOLS = frozenset({"Write", "Edit"})


@dataclass(frozen=True)
class GateDecision:
    allowed: bool
    reason: str = ""


class ForkToolGate:
    def __init__(self, memory_dir: AutoMemoryDir) -> None:
        self.memory_dir = memory_dir

    @property
    def allowed_summary(self) -> str:
        return (
            "The memory extraction may only use Read, Grep, Glob, read-only Bash commands "
            f"(ls, cat, grep, …), and Write/Edit on files inside {self.memory_dir.path}."
        )

    def _refuse(self, why: str) -> GateDecision:
        return GateDecision(False, f"{why} {self.allowed_summary}")

    def check(self, tool_name: str, args: dict[str, Any], workdir: Path) -> GateDecision:
        if tool_name in READ_TOOLS:
            return GateDecision(True, "read-only tool")
        if not isinstance(args, dict):
            return self._refuse(f"{tool_name} was called without valid arguments.")
        if tool_name == "Bash":
            return self._check_bash(args.get("command"))
        if tool_name in WRITE_TOOLS:
            return self._check_write(tool_name, args.get("file_path"), workdir, args)
        return self._refuse(f"{tool_name} is not available to the memory extraction.")

    def _check_bash(self, command: object) -> GateDecision:
        from wave_tui.tools.registry import is_read_only_bash  # lazy: tools may import memory

        if isinstance(command, str) and command.strip() and is_read_only_bash(command):
            return GateDecision(True, "read-only Bash command")
        return self._refuse("This Bash command is not read-only.")

    def _check_write(
        self, tool_name: str, file_path: object, workdir: Path, args: dict[str, Any]
    ) -> GateDecision:
        target = _resolve(file_path, workdir)
        if target is not None and self.memory_dir.contains(target):
            refusal = secret_refusal(written_text(tool_name, args))
            if refusal:
                return GateDecision(False, refusal)
            return GateDecision(True, "inside the auto-memory directory")
        shown = file_path if isinstance(file_path, str) else repr(file_path)
        return self._refuse(f"{tool_name} to {shown!r} is outside the auto-memory directory.")


def _resolve(file_path: object, workdir: Path) -> str | None:
    """The path the Write/Edit tools would use (same `~` and work-dir rules), unresolved."""
    if not isinstance(file_path, str) or not file_path.strip() or "\x00" in file_path:
        return None
    try:
        expanded = os.path.expanduser(file_path)
        return os.path.join(os.fspath(workdir), expanded)
    except (TypeError, ValueError):
        return None
