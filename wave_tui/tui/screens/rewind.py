"""`/rewind` (and Esc Esc on an empty input) and `/fork` in the app.

The picker lists this session's messages newest first (time, a preview, how many files its turn
wrote); a choice offers code and conversation · conversation only · code only · cancel (keys
1–4), naming the files a code rewind puts back and saying that Bash changes are not tracked.
Files changed elsewhere since the agent wrote them are listed and asked about. A conversation
rewind puts the message's text back in the input and offers to revert the extraction runs made
since.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from wave_tui.session.types import (
    BASH_NOTE,
    KEPT_NOTE,
    FileRestore,
    RewindError,
    RewindMode,
    RewindPoint,
)
from wave_tui.tui.format import show_path
from wave_tui.tui.screens.pickers import PICKER_WIDTH, Picker
from wave_tui.tui.widgets.footer import Footer

if TYPE_CHECKING:
    from wave_tui.tui.app import WaveApp

PREVIEW_WIDTH = 56
FIXED_COLUMNS = 38  # time, files, the dialog's and the list's frames
MODES: dict[str, str] = {
    "both": "Rewind code and conversation",
    "conversation": "Rewind the conversation only (files stay)",
    "code": "Rewind the code only (the conversation stays)",
    "cancel": "Cancel",
}


def _preview(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _time(at: str) -> str:
    """`HH:MM` (and the date when not today's) of an ISO stamp, in local time."""
    from datetime import datetime

    try:
        stamp = datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone()
    except ValueError:
        return at[:16]
    today = datetime.now().astimezone().date()
    return stamp.strftime("%H:%M" if stamp.date() == today else "%m-%d %H:%M")


def rewind_picker(points: Sequence[RewindPoint], screen_width: int, app: WaveApp) -> Picker:
    dialog = min(PICKER_WIDTH, int(screen_width * 0.95))
    width = max(12, min(PREVIEW_WIDTH, dialog - FIXED_COLUMNS))
    options = []
    for p in points:
        parts: list[tuple[str, str]] = [
            (f"{_time(p.at):>11}  ", "$text-muted"),
            (_preview(p.text, width).ljust(width + 1), "bold"),
            (f"{len(p.files):>3} file{'s' if len(p.files) != 1 else ' '}", "$text-muted"),
        ]
        if p.files:  # which files, on a line of their own under the preview
            names = ", ".join(show_path(f, app.paths) for f in p.files)
            parts.append(("\n" + " " * 13 + _preview(names, width + 10), "$text-muted"))
        options.append(Option(Content.assemble(*parts), id=str(p.n)))
    return Picker(
        "Rewind to before which message? (newest first)",
        options,
        "No messages in this conversation yet.",
        f"{BASH_NOTE}\nEnter chooses · Esc cancels",
    )


class ChoiceDialog(ModalScreen[str | None]):
    """A question, what it concerns, and numbered answers (keys 1–n, or Enter); Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="cancel-choice")]
    DEFAULT_CSS = """
    ChoiceDialog .rewind-body { height: auto; max-height: 12; }
    ChoiceDialog #choice-list { height: auto; margin-top: 1; }
    """

    def __init__(
        self, title: str, body: str, choices: Sequence[tuple[str, str]], note: str
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.body = body
        self.choices = list(choices)
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker rewind-dialog"):
            yield Static(Content(self.title_text), classes="dialog-title")
            if self.body:
                with VerticalScroll(classes="dialog-body rewind-body"):
                    yield Static(Content(self.body))
            options = [
                Option(f"{i}. {label}", id=key) for i, (key, label) in enumerate(self.choices, 1)
            ]
            yield OptionList(*options, id="choice-list")
            if self.note:
                yield Static(Content(self.note), classes="dialog-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#choice-list", OptionList).focus()

    def on_key(self, event: events.Key) -> None:
        if event.character and event.character.isdigit():
            index = int(event.character) - 1
            if 0 <= index < len(self.choices):
                event.stop()
                self.dismiss(self.choices[index][0])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _files_text(plan: Sequence[FileRestore], app: WaveApp) -> str:
    lines = []
    for item in plan:
        shown = show_path(item.path, app.paths)
        if item.action == "unchanged":
            continue
        if item.action == "lost":
            lines.append(f"  ! {shown} (not checkpointed: over the session's cap)")
            continue
        verb = "remove" if item.action == "remove" else "restore"
        elsewhere = "  (changed since the agent wrote it)" if item.changed_elsewhere else ""
        lines.append(f"  {verb} {shown}{elsewhere}")
    return "\n".join(lines) if lines else "  (no file to put back)"


# req: RW2
async def run_rewind(app: WaveApp) -> None:
    """The whole dialog, in a worker: message, mode, files changed elsewhere, memory runs."""
    session = app.session
    points = await session.rewind.points()
    chosen = await app.push_screen_wait(rewind_picker(points, app.size.width, app))
    if not chosen:
        return
    n = int(chosen)
    target = next(p for p in points if p.n == n)
    plan = await session.rewind.plan(n)
    body = f"“{_preview(target.text, 200)}”\n\nA code rewind would:\n{_files_text(plan, app)}"
    answer = await app.push_screen_wait(
        ChoiceDialog(f"Rewind to before message {n}", body, list(MODES.items()), BASH_NOTE)
    )
    mode = next((m for m in get_args(RewindMode) if m == answer), None)
    if mode is None:
        return
    # Asked about as they are now: a file may have changed while the dialog was open.
    overwrite = await _ask_about_changed_files(app, await session.rewind.plan(n), mode)
    if overwrite is None:
        return
    runs = await session.rewind.runs_since(n) if mode != "code" else []
    try:
        outcome = await session.rewind.rewind(n, mode, overwrite)
    except (RuntimeError, OSError, RewindError) as exc:
        app.notify(str(exc), severity="error", markup=False)
        return
    if outcome.text is not None:
        await app.chat_screen.reload_conversation()
        app.chat_screen.put_back(outcome.text)
    if outcome.kept_as is not None:
        app.notify(KEPT_NOTE.format(id=outcome.kept_as), markup=False)
    if outcome.code is not None:
        code = outcome.code
        kept = f"; kept {len(code.left_alone)} changed elsewhere" if code.left_alone else ""
        app.notify(
            f"Files: {len(code.restored)} restored, {len(code.removed)} removed{kept}",
            markup=False,
        )
    if runs:
        await _offer_reverts(app, [r.id for r in runs])


async def _ask_about_changed_files(
    app: WaveApp, plan: Sequence[FileRestore], mode: RewindMode
) -> frozenset[Path] | None:
    """The files to overwrite although changed elsewhere (None: the user cancelled)."""
    changed = [p.path for p in plan if p.changed_elsewhere]
    if mode == "conversation" or not changed:
        return frozenset()
    listed = "\n".join(f"  {show_path(p, app.paths)}" for p in changed)
    answer = await app.push_screen_wait(
        ChoiceDialog(
            "These files changed since the agent last wrote them",
            listed,
            [
                ("keep", "Keep them as they are (rewind the rest)"),
                ("overwrite", "Overwrite them with the checkpoint"),
                ("cancel", "Cancel the rewind"),
            ],
            "Nothing is overwritten without your say.",
        )
    )
    if answer == "keep":
        return frozenset()
    if answer == "overwrite":
        return frozenset(changed)
    return None


# req: RW6
async def _offer_reverts(app: WaveApp, run_ids: list[str]) -> None:
    answer = await app.push_screen_wait(
        ChoiceDialog(
            "Revert the memory learned since that message?",
            "\n".join(f"  extraction run {run_id}" for run_id in run_ids),
            [("revert", "Revert these extraction runs"), ("keep", "Keep the memory")],
            "The same as `wave memory revert ID` for each run.",
        )
    )
    if answer != "revert":
        return
    results = await app.session.rewind.revert_runs(run_ids)
    files = sum(len(r.restored) for r in results)
    app.notify(f"Reverted {len(results)} extraction runs ({files} files)", markup=False)


# req: RW4
async def run_fork(app: WaveApp) -> None:
    try:
        new_id = await app.session.rewind.fork()
    except (RuntimeError, OSError, LookupError) as exc:
        app.notify(str(exc), severity="error", markup=False)
        return
    await app.chat_screen.reload_conversation()
    app.notify(f"Forked: now in session {new_id}; the original stays as it was", markup=False)
