"""The extraction fork and team memory (MM4): it never writes `.wave/memory/`; a Write or Edit
it makes there becomes a review-inbox item marked `team`, which the user accepts (the file is
written for them to commit) or rejects. The fork learns of the team folder from one paragraph
after its task, only in projects that have one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wave_tui.config.paths import WavePaths
from wave_tui.memory.inbox import Inbox, InboxError, PendingWrite
from wave_tui.memory.secrets import secret_refusal, written_text
from wave_tui.permissions.fork_gate import GateDecision
from wave_tui.permissions.tool_table import EDIT, WRITE
from wave_tui.tools.base import ToolResult

TEAM_NOTE = (
    "## Team memory\n\n"
    "This project keeps a team memory in `{team_dir}` (committed with the code; its index is "
    "{team_dir}/MEMORY.md). A memory that is true for everyone working on this project — a "
    "convention, a decision, how the build or deploy works — may be proposed there: Write or "
    "Edit the file under `{team_dir}` as you would in the auto-memory directory. Such a write "
    "is never made: it waits in the user's review inbox, marked team. Personal preferences and "
    "anything about this user alone stay in the auto-memory directory."
)


def team_note(paths: WavePaths | None) -> str | None:
    """The paragraph for the fork's prompt, when the project has a team memory folder."""
    if paths is None or not paths.team_memory_dir.is_dir():
        return None
    return TEAM_NOTE.format(team_dir=paths.team_memory_dir)


def team_target(paths: WavePaths | None, name: str, target: Path | None) -> Path | None:
    """The team-folder file a Write or Edit aims at (`target`: the real path it names); None
    for any other call."""
    if paths is None or name not in (WRITE, EDIT):
        return None
    if target is None or target.suffix != ".md":
        return None
    team = paths.team_memory_dir
    try:
        target.relative_to(team)
    except ValueError:
        return None
    return target if target != team else None


# req: MM4
def team_decision(name: str, args: dict[str, Any]) -> GateDecision:
    """A team proposal passes the fork's gate unless it holds a credential."""
    refusal = secret_refusal(written_text(name, args))
    return GateDecision(False, refusal) if refusal else GateDecision(True, "a team proposal")


def proposed_text(name: str, args: dict[str, Any], current: str | None) -> str:
    """What the file would hold: a Write's content, or an Edit applied to `current` (the file's
    pending proposal, else its text)."""
    if name == WRITE:
        return str(args.get("content", ""))
    old, new = str(args.get("old_string", "")), str(args.get("new_string", ""))
    if current is None:
        raise InboxError("File does not exist. To create it, use Write.")
    count = current.count(old) if old else 0
    if count == 0:
        raise InboxError("old_string was not found in the file; Read it again if unsure.")
    if count > 1 and args.get("replace_all") is not True:
        raise InboxError(f"old_string occurs {count} times; add context or set replace_all.")
    return (
        current.replace(old, new)
        if args.get("replace_all") is True
        else current.replace(old, new, 1)
    )


# req: MM4
def propose_team(
    paths: WavePaths, name: str, args: dict[str, Any], target: Path, run_id: str
) -> tuple[ToolResult, PendingWrite | None]:
    inbox = Inbox(paths.project_dir, paths.memory_dir, paths.team_memory_dir)
    try:
        after = proposed_text(name, args, inbox.current_text(target))
    except InboxError as exc:
        return ToolResult(str(exc), is_error=True), None
    item = inbox.propose_team(target, after, paths.team_memory_dir, run_id)
    text = (
        f"Proposed {target} for the team memory (pending item {item.id}, marked team): the user "
        "accepts or rejects it; nothing is written to the repository until then."
    )
    return ToolResult(text), item
