"""What a permission request will do, as the dialog shows it: a diff, the new file, the full
command, or every argument of any other tool."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.paths import display_path
from wave_tui.config.records import record
from wave_tui.files.real_paths import resolve_tool_path
from wave_tui.permissions.tool_table import BASH, EDIT, WRITE
from wave_tui.tools.base import ToolError
from wave_tui.tools.edit import planned_edit

DIFF_CONTEXT_LINES = 3
PREVIEW_MAX_LINES = 400  # a huge Write is cut in the dialog (the tool still gets it all)
PreviewKind = Literal["diff", "new-file", "command", "arguments", "refusal", "none"]


@record
class PermissionPreview:
    """What an approved call will do, as the dialog shows it."""

    kind: PreviewKind
    # A unified diff, the new file's content, the full command, the arguments as JSON, or the
    # tool's refusal (an Edit it would refuse: nothing to approve but the user should know).
    text: str
    path: str = ""
    description: str = ""  # Bash: what the command does, in the model's words
    background: bool = False  # Bash: run_in_background, the call returns at once


# req: UX18
def permission_preview(tool: str, args: dict[str, Any], root: Path) -> PermissionPreview:
    """Blocking (reads the file an Edit/Write changes): call from a thread."""
    if tool == BASH and isinstance(args.get("command"), str):
        return _command_preview(args)
    if tool == EDIT:
        return _edit_preview(args, root)
    if tool != WRITE:
        return _arguments_preview(args)
    target = resolve_tool_path(args.get("file_path"), root)
    if target is None:
        return PermissionPreview("none", "")
    shown = display_path(target, root)
    try:
        old = target.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return PermissionPreview("new-file", _cut(str(args.get("content") or "")), shown)
    return _diff(old, str(args.get("content") or ""), shown)


# req: CV10
def _command_preview(args: dict[str, Any]) -> PermissionPreview:
    description = args.get("description")
    return PermissionPreview(
        "command",
        args["command"],
        description=description.strip() if isinstance(description, str) else "",
        background=args.get("run_in_background") in (True, "true"),
    )


# req: CV10
def _arguments_preview(args: dict[str, Any]) -> PermissionPreview:
    """Any other tool (an MCP tool above all): every argument it will get, as JSON."""
    if not args:
        return PermissionPreview("none", "")
    text = json.dumps(args, indent=2, ensure_ascii=False, default=str)
    return PermissionPreview("arguments", _cut(text))


def _edit_preview(args: dict[str, Any], root: Path) -> PermissionPreview:
    """The Edit tool's own result as a diff, or its refusal (never a diff it would not make)."""
    target = resolve_tool_path(args.get("file_path"), root)
    shown = display_path(target, root) if target is not None else ""
    try:
        before, edited = planned_edit(args, root)
    except ToolError as refusal:
        return PermissionPreview("refusal", str(refusal), shown)
    return _diff(before, edited.text, shown)


def _diff(old: str, new: str, shown: str) -> PermissionPreview:
    diff = difflib.unified_diff(
        old.splitlines(),
        new.splitlines(),
        fromfile=f"a/{shown}",
        tofile=f"b/{shown}",
        n=DIFF_CONTEXT_LINES,
        lineterm="",
    )
    return PermissionPreview("diff", _cut("\n".join(diff)) or "(no change)", shown)


def _cut(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= PREVIEW_MAX_LINES:
        return text
    rest = len(lines) - PREVIEW_MAX_LINES
    return "\n".join([*lines[:PREVIEW_MAX_LINES], f"… {rest} more lines"])
