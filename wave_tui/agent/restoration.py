"""Context restoration after a compaction: what a summary cannot carry precisely — the working
directory, plan mode, background work still running, the skills invoked this session and the
files read most recently — appended to the summary, fitted to a token budget.

On a small window (the 8k–32k of a local model) the budget is what the next request has left
once the instructions, tools, summary and kept rounds are counted: files and skill instructions
past it are truncated or left out, and the restoration says which (CV11).

Fitting a compaction to the window: how many rounds stay verbatim, how long the summary may
be, and how much restoration the next request can still carry.

Every figure is in estimated tokens (`llm.usage`), the unit `ContextWindows.budget()` gives the
room in: the instructions and tools of the next request are counted by the caller, the compacted
messages here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from wave_tui.config.records import record
from wave_tui.files.read_state import ReadState
from wave_tui.llm.images import split_image_tokens
from wave_tui.llm.types import Message
from wave_tui.llm.usage import CHARS_PER_TOKEN, estimate_tokens
from wave_tui.llm.wire import message_to_wire
from wave_tui.permissions.tool_table import READ
from wave_tui.tools.read import format_line

RESTORATION_HEADING = "[Context Restoration]"
RESTORE_MAX_FILES = 5
RESTORE_TOKENS_PER_FILE = 5000
SKILLS_TOKENS_TOTAL = 25_000
SKILLS_TOKENS_EACH = 5000
MIN_RESTORED_TOKENS = 64  # less than this of a file or skill is not worth restoring
BACKGROUND_LINE_CHARS = 300
READ_AGAIN = "read the file again for the rest"
CUT_TO_FIT = "cut to fit the context window; read the file again (offset/limit) for the rest"
SKILL_CUT = "cut to fit the context window; invoke the skill again for all of it"


def cap_to_tokens(text: str, budget: int, note: str = READ_AGAIN) -> str:
    limit = max(0, budget) * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text
    line_end = text.rfind("\n", 0, limit)
    if line_end > limit // 2:
        limit = line_end  # whole lines: a cut line reads like a line of the file
    omitted = estimate_tokens(text[limit:])
    return f"{text[:limit]}\n[… truncated: about {omitted} more tokens; {note}]"


def recent_read_files(
    read_state: ReadState, limit: int = RESTORE_MAX_FILES
) -> list[tuple[Path, str]]:
    """The most recently read whole files whose content is known, newest first."""
    entries = [e for e in read_state if e.is_full and e.content is not None]
    entries.sort(key=lambda e: e.read_at, reverse=True)
    return [(e.path, e.content or "") for e in entries[:limit]]


def _full_read_target(arguments: str, workdir: Path) -> Path | None:
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return None
    if not isinstance(args, dict) or not isinstance(args.get("file_path"), str):
        return None
    if args.get("offset") not in (None, 0, 1) or args.get("limit") is not None:
        return None  # a partial read does not hold the whole file
    path = Path(args["file_path"]).expanduser()
    return (path if path.is_absolute() else workdir / path).resolve()


def _holds(result: str, content: str) -> bool:
    """The Read result shows this content: its first and last lines, numbered as Read numbers."""
    lines = content.splitlines()
    if not lines:
        return True
    return format_line(1, lines[0]) in result and format_line(len(lines), lines[-1]) in result


def not_in_messages(
    recent_files: Sequence[tuple[Path, str]], messages: Sequence[Message], workdir: Path
) -> list[tuple[Path, str]]:
    """The recent files whose current content no kept Read result already shows (MX10)."""
    # req: MX10
    calls: dict[str, Path] = {}
    shown: dict[Path, list[str]] = {}
    for message in messages:
        for call in message.tool_calls or []:
            target = _full_read_target(call.arguments, workdir) if call.name == READ else None
            if target is not None:
                calls[call.id] = target
        if message.role == "tool" and message.tool_call_id in calls:
            shown.setdefault(calls[message.tool_call_id], []).append(message.content)
    kept: list[tuple[Path, str]] = []
    for path, content in recent_files:
        results = shown.get(path.resolve(), [])
        if not any(_holds(result, content) for result in results):
            kept.append((path, content))
    return kept


def _tokens(lines: Sequence[str]) -> int:
    return estimate_tokens("\n".join(lines))


# req: CV11
def restoration_section(
    recent_files: Sequence[tuple[Path, str]],
    workdir: Path,
    plan_mode: bool,
    background: Sequence[str],
    token_budget_per_file: int = RESTORE_TOKENS_PER_FILE,
    *,
    plan_file: Path | None = None,
    skills: Sequence[tuple[str, str]] = (),
    budget: int | None = None,
) -> str:
    """What the summary cannot carry precisely: live session state, the instructions of the
    skills invoked (name, text as invoked; newest first) and recent file contents.

    With a `budget` (estimated tokens) the whole section fits it: a skill or file that would not
    fit is truncated, or left out below `MIN_RESTORED_TOKENS`, and a closing line names those
    left out so the model knows to read them again."""
    lines = [RESTORATION_HEADING, f"Working directory: {workdir}"]
    plan = "on" if plan_mode else "off"
    if plan_mode and plan_file is not None:
        plan += f" (plan file: {plan_file})"
    lines.append(f"Plan mode: {plan}")
    if background:
        lines.append("Background work still running:")
        lines.extend(f"- {item[:BACKGROUND_LINE_CHARS]}" for item in background)
    else:
        lines.append("Background work still running: none")
    if skills:
        lines.append("Skills invoked in this session: " + ", ".join(name for name, _ in skills))
    blocks: list[tuple[str, str]] = []  # (what it is, the text block)
    skill_room = SKILLS_TOKENS_TOTAL
    for name, text in skills:
        cap = min(SKILLS_TOKENS_EACH, skill_room)
        if cap < MIN_RESTORED_TOKENS:
            break
        body = cap_to_tokens(text.strip(), cap, SKILL_CUT)
        skill_room -= estimate_tokens(body)
        blocks.append((f"skill {name}", f"\nSkill {name}, as invoked (still in force):\n{body}"))
    for path, content in list(recent_files)[:RESTORE_MAX_FILES]:
        body = cap_to_tokens(content, token_budget_per_file)
        blocks.append((str(path), f"\nRecently read file: {path}\n```\n{body}\n```"))
    if budget is None:
        return "\n".join([*lines, *(block for _, block in blocks)])
    return _fit(lines, blocks, budget, {path: content for path, content in recent_files}, skills)


def _fit(
    lines: list[str],
    blocks: list[tuple[str, str]],
    budget: int,
    files: dict[Path, str],
    skills: Sequence[tuple[str, str]],
) -> str:
    """The lines, then as many blocks as the budget holds (the last one that fits is cut)."""
    texts = dict(skills)
    out = list(lines)
    left_out: list[str] = []
    note_reserve = 40  # the closing line about what was left out
    for what, block in blocks:
        if left_out:
            left_out.append(what)
            continue
        room = budget - _tokens(out) - note_reserve - estimate_tokens(what) - 1
        if estimate_tokens(block) + 1 <= room:
            out.append(block)
            continue
        cut = _cut_block(what, room, files, texts)
        if cut is None:
            left_out.append(what)
        else:
            out.append(cut)
    if left_out:
        out.append(
            "Not restored, no room left in the model's context window (read or invoke again "
            "if needed): " + ", ".join(left_out)
        )
        while _tokens(out) > budget and len(out) > len(lines) + 1:
            removed = out.pop(-2)  # the last restored block goes before the note does
            out[-1] += f", {removed.strip().splitlines()[0]}"
    return "\n".join(out)


def _cut_block(what: str, room: int, files: dict[Path, str], skills: dict[str, str]) -> str | None:
    """The block for `what`, its text cut to `room` tokens; None when too little would be left."""
    if what.startswith("skill "):
        name = what.removeprefix("skill ")
        head = f"\nSkill {name}, as invoked (still in force):\n"
        cap = room - estimate_tokens(head) - 30
        if cap < MIN_RESTORED_TOKENS:
            return None
        return head + cap_to_tokens(skills[name].strip(), cap, SKILL_CUT)
    path = Path(what)
    head = f"\nRecently read file: {path}\n```\n"
    cap = room - estimate_tokens(head) - 30
    if cap < MIN_RESTORED_TOKENS or path not in files:
        return None
    return f"{head}{cap_to_tokens(files[path], cap, CUT_TO_FIT)}\n```"


# -- fitting a compaction to the window (CV11) ----------------------------------------

KEPT_SHARE = 0.5  # of the room, at most, for the rounds kept verbatim
SUMMARY_SHARE = 0.6  # of what the kept rounds leave, for the summary (the rest: restoration)
MIN_SUMMARY_TOKENS = 128
MIN_ROOM = 2 * MIN_SUMMARY_TOKENS + 200  # less room than this: no compaction can fit
SUMMARY_CUT = "summary cut to fit the context window"


@record
class Budget:
    """What a compaction's result may take, in estimated tokens."""

    room: int  # the compacted messages (summary block and kept rounds) in the next request
    summary: int | None = None  # the summary model's own request, its reply included


def wire_tokens(messages: Sequence[Message]) -> int:
    """Estimated tokens of `messages` as the request carries them (counted like a body: an
    image by its size, not by its base64)."""
    wire, images = split_image_tokens([message_to_wire(m) for m in messages])
    return estimate_tokens(json.dumps(wire, ensure_ascii=False, separators=(",", ":"))) + images


def fitting_keep_rounds(rounds: Sequence[Sequence[Message]], keep_rounds: int, room: int) -> int:
    """The most rounds (up to `keep_rounds`) that stay verbatim within `KEPT_SHARE` of the room;
    a round too big for it is summarised instead (a big file just read, on a small window)."""
    while keep_rounds > 0:
        kept = [m for r in rounds[-keep_rounds:] for m in r if m.kind != "compress"]
        if wire_tokens(kept) <= room * KEPT_SHARE:
            return keep_rounds
        keep_rounds -= 1
    return 0


def summary_cap(available: int, maximum: int) -> int:
    """The summary's output limit when `available` tokens are left after the kept rounds."""
    return max(MIN_SUMMARY_TOKENS, min(maximum, int(available * SUMMARY_SHARE)))


def fit_summary(
    summary: str,
    kept: Sequence[Message],
    room: int,
    restoration: Callable[[int | None], str],
    make: Callable[[str, str], Message],
) -> Message | None:
    """The compress block for `summary` whose restoration takes what `room` leaves once the
    summary and the kept rounds are counted; the summary itself is cut when it alone would not
    leave room for the restoration's state lines. None: not even that fits."""
    available = room - wire_tokens(kept)
    floor = restoration(0)  # the state lines and the note naming what was left out
    floor_tokens = wire_tokens([make("", floor)])
    if available < floor_tokens + MIN_SUMMARY_TOKENS:
        return None
    if wire_tokens([make(summary, floor)]) > available:
        # JSON escapes make the wire a little longer than the text: cut with a margin.
        summary = cap_to_tokens(summary, int((available - floor_tokens) * 0.85), SUMMARY_CUT)
    limit = available - wire_tokens([make(summary, "")])
    for _ in range(4):
        message = make(summary, restoration(max(0, limit)))
        over = wire_tokens([message]) - available
        if over <= 0:
            return message
        limit -= over + 16
    message = make(summary, floor)
    return message if wire_tokens([message]) <= available else None
