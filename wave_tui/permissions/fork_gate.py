"""Which tool calls the extraction fork may run (F5-F7).

Reads anywhere; Bash only when read-only (and its git inside the project's own repository);
Write/Edit only on real paths inside the memory folder, and only when the content guard lets the
text through; every other tool refused (MCP, Agent, tasks, plan mode, WebFetch, questions,
skills). A refusal names what is allowed, so the model can carry on.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from wave_tui.config.records import record
from wave_tui.files.real_paths import is_strictly_inside
from wave_tui.permissions.call_facts import AnalysedCall
from wave_tui.permissions.policy import READ_ONLY_COMMAND, UNRESTRICTED, RunProfile
from wave_tui.permissions.tool_table import TOOLS

# (tool name, arguments) -> a refusal for the text written, or None (the memory secret check).
ContentGuard = Callable[[str, dict[str, Any]], "str | None"]


@record
class GateDecision:
    allowed: bool
    reason: str = ""
    profile: RunProfile = UNRESTRICTED


class ForkToolGate:
    def __init__(self, memory_dir: Path, content_guard: ContentGuard | None = None) -> None:
        self.memory_dir = memory_dir
        self._content_guard = content_guard

    @property
    def allowed_summary(self) -> str:
        return (
            "The memory extraction may only use Read, Grep, Glob, read-only Bash commands "
            f"(ls, cat, grep, …), and Write/Edit on files inside {self.memory_dir}."
        )

    def _refuse(self, why: str) -> GateDecision:
        return GateDecision(False, f"{why} {self.allowed_summary}")

    # req: F7
    # req: F5
    # req: MC6
    # req: TK6
    # req: AG6
    def check(self, call: AnalysedCall) -> GateDecision:
        info = TOOLS.get(call.name)
        if info is None or not info.in_fork:
            return self._refuse(f"{call.name} is not available to the memory extraction.")
        if info.read_only:
            return GateDecision(True, "read-only tool")
        if not isinstance(call.args, dict):
            return self._refuse(f"{call.name} was called without valid arguments.")
        if info.writes_paths:
            return self._check_write(call)
        command = call.facts.command
        if command is not None and command.text.strip() and command.read_only_here:
            return GateDecision(True, "read-only Bash command", READ_ONLY_COMMAND)
        return self._refuse("This Bash command is not read-only.")

    def _check_write(self, call: AnalysedCall) -> GateDecision:
        target = call.facts.target
        if target is not None and is_strictly_inside(target, self.memory_dir):
            refusal = (
                self._content_guard(call.name, dict(call.args)) if self._content_guard else None
            )
            if refusal:
                return GateDecision(False, refusal)
            return GateDecision(True, "inside the auto-memory directory")
        file_path = call.args.get("file_path")
        shown = file_path if isinstance(file_path, str) else repr(file_path)
        return self._refuse(f"{call.name} to {shown!r} is outside the auto-memory directory.")
