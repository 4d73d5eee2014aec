"""Plain-text formatting for the TUI (no Textual here, so it is testable on its own)."""

from __future__ import annotations

import re
from pathlib import Path

from wave_tui.config.paths import WavePaths, display_path

__all__ = [
    "age_label",
    "auto_memory_label",
    "background_finished",
    "clip_output",
    "one_line",
    "shell_ending_label",
    "short_tokens",
    "show_key_arg",
    "show_path",
    "shown_tool_output",
]

TOOL_OUTPUT_MAX_CHARS = 4_000
TOOL_OUTPUT_MAX_LINES = 60
# The path that starts such a line: up to `:N:`/`-N-` (a match or context line), `:` or the end.
# Cut too early (a name with "-2-" in it), only a leading part of the path is shortened, which
# reads the same; a path outside the project and home stays as it is.
LEADING_PATH = re.compile(r"^/.*?(?=[:-]\d+[:-]|:|$)")


def show_path(path: Path | str, paths: WavePaths) -> str:
    """`auto memory/x.md` in the memory folder, relative to the project, `~/...` under home,
    else as given: never a bare tmp path (the memory folder's project id is one)."""
    target = Path(path)
    if target.is_relative_to(paths.memory_dir):
        return "auto memory/" + target.relative_to(paths.memory_dir).as_posix()
    return display_path(target, paths.project_root, paths.home)


def show_key_arg(value: str, paths: WavePaths) -> str:
    """A tool's key argument on one line; absolute paths shortened like `show_path`."""
    line = value.splitlines()[0] if value else ""
    if line.startswith("/"):
        line = show_path(line, paths)
    if len(line) > 80:
        line = line[:77] + "..."
    return line


def shown_tool_output(tool: str, output: str, paths: WavePaths) -> str:
    """A tool's output as the chat shows it: Grep's and Glob's absolute paths relative to the
    project (`~/…` under home), as `show_path` shows every path. The model got them as they
    are."""
    from wave_tui.session.types import PATH_LISTING_TOOLS  # with the first tool output

    if tool not in PATH_LISTING_TOOLS:
        return output
    return "\n".join(
        LEADING_PATH.sub(lambda found: show_path(found.group(0), paths), line, count=1)
        for line in output.split("\n")
    )


def background_finished(task_id: str, label: str, exit_code: int | None) -> str:
    """The chat's line for a background command that finished (what the model is told)."""
    ended = "completed" if exit_code == 0 else "failed"
    return f'"{one_line(label, 60)}" {ended} (exit code {exit_code}) · {task_id}'


def shell_ending_label(exit_code: int | None, ending: str) -> str:
    """How a `!cmd` ended, for its block: nothing for a clean exit, else the exit code or why
    it stopped."""
    if ending == "interrupted":
        return "killed (esc)"
    if ending == "timed out":
        return "killed: timed out"
    return "" if exit_code == 0 else f"exit code {exit_code}"


def clip_output(text: str) -> str:
    """Tool output as shown in its collapsible: bounded in lines and characters."""
    lines = text.splitlines()
    shown = "\n".join(lines[:TOOL_OUTPUT_MAX_LINES])
    if len(shown) > TOOL_OUTPUT_MAX_CHARS:
        return shown[:TOOL_OUTPUT_MAX_CHARS] + "\n… (output clipped)"
    if len(lines) > TOOL_OUTPUT_MAX_LINES:
        return shown + f"\n… ({len(lines) - TOOL_OUTPUT_MAX_LINES} more lines)"
    return shown


def short_tokens(count: int) -> str:
    if count < 1_000:
        return str(count)
    if count < 100_000:
        return f"{count / 1_000:.1f}k"
    return f"{count // 1_000}k"


# req: MR1
def auto_memory_label(
    enabled: bool, frequency: int, turns_until_next: int | None, writes: str = "auto"
) -> str:
    if not enabled:
        return "auto memory off"
    if writes == "off":
        return "auto memory recall only"
    on = "review" if writes == "review" else "on"
    every = "every turn" if frequency == 1 else f"every {frequency} turns"
    if turns_until_next is None:
        return f"auto memory {on} · {every}"
    if turns_until_next <= 0:
        return f"auto memory {on} · {every} · due now"
    return f"auto memory {on} · {every} · next in {turns_until_next}"


def age_label(age_days: int | None) -> str:
    if age_days is None:
        return "?"
    if age_days == 0:
        return "today"
    return f"{age_days}d"


def one_line(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
