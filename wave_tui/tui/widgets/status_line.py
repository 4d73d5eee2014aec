"""The one-line status under the chat: model, context, cache hits, auto memory, memory proposals
waiting for review, background work."""

from __future__ import annotations

import time
from dataclasses import replace

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from wave_tui.config.records import record
from wave_tui.tui.format import auto_memory_label, short_tokens

SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
STARTING = "starting…"


@record
class StatusInfo:
    model: str | None = None
    context_tokens: int | None = None
    cache_percent: int | None = None
    auto_memory: bool = True
    frequency: int = 1
    turns_until_next: int | None = None
    memory_writes: str = "auto"  # autoMemoryWrites: auto | review | off
    busy: bool = False
    background: str | None = None  # what runs in the background (extraction...), None when idle
    context_window: int | None = None
    mode: str = "default"  # the permission mode, always shown (UX17)
    review_pending: int = 0  # memory proposals waiting in the review inbox
    worktree: str | None = None  # the git worktree the session works in
    starting: bool = False  # the session is still opening: nothing else is known yet (UX14)


NARROW = 90  # below this width the status line drops words, never the mode or background work
MODE_LABELS = {"default": "", "acceptEdits": "⏵⏵ accept edits", "plan": "⏸ plan mode"}


# req: MX8
def review_label(count: int, narrow: bool) -> str:
    """`3 to review` (narrow) / `3 memories to review`: proposals in the review inbox."""
    if narrow:
        return f"{count} to review"
    return f"{count} {'memory' if count == 1 else 'memories'} to review"


class StatusLine(Static):
    """Redrawn from a `StatusInfo`; a spinner turns while a turn or background work runs."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.info = StatusInfo()
        self._frame = 0
        self._timer: Timer | None = None
        self._busy_since: float | None = None

    def on_mount(self) -> None:
        self._timer = self.set_interval(0.1, self._tick, pause=True)
        self._redraw()

    def update_info(self, **changes: object) -> None:
        self.info = replace(self.info, **changes)  # type: ignore[arg-type]
        if self.info.busy and self._busy_since is None:
            self._busy_since = time.monotonic()
        elif not self.info.busy:
            self._busy_since = None
        self.set_class(self.info.busy, "-busy")
        self.set_class(self.info.background is not None, "-background")
        if self._timer is not None:
            spinning = self.info.busy or self.info.background is not None
            animated = self.app.animation_level != "none"
            if spinning and animated:
                self._timer.resume()
            else:
                self._timer.pause()
        self._redraw()

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER_FRAMES)
        self._redraw()

    def _spinner(self) -> str:
        if self.app.animation_level == "none":
            return "●"
        return SPINNER_FRAMES[self._frame]

    def on_resize(self) -> None:
        self._redraw()

    def _elapsed(self) -> str:
        if self._busy_since is None or self.app.animation_level == "none":
            return ""
        return f" {int(time.monotonic() - self._busy_since)}s"

    # req: UX13
    def _redraw(self) -> None:
        info = self.info
        if info.starting:
            self.update(Content.styled(STARTING, "$text-muted"))
            return
        narrow = 0 < self.size.width < NARROW
        sep = (" │ " if narrow else "  │  ", "$text-muted")
        parts: list[str | tuple[str, str]] = []
        if info.busy:
            label = "" if narrow else " working"
            parts += [(f"{self._spinner()}{label}{self._elapsed()}", "$accent"), sep]
        # req: UX17
        mode = MODE_LABELS.get(info.mode, info.mode)
        if mode:
            parts += [(mode, "bold $warning"), sep]
        if info.worktree:
            parts += [(f"⎇ {info.worktree}", "bold $accent"), sep]
        if info.model:
            parts.append((info.model, "bold"))
        else:
            parts.append(("no model configured", "$warning"))
        if info.context_tokens is not None:
            # req: UX19
            ctx = f"ctx {short_tokens(info.context_tokens)}"
            if not narrow:
                ctx += " tokens"
            if info.context_window:
                ctx += f" ({round(100 * info.context_tokens / info.context_window)}%)"
            parts += [sep, ctx]
        if info.cache_percent is not None and not narrow:
            parts += [sep, f"cache {info.cache_percent}%"]
        label = auto_memory_label(
            info.auto_memory, info.frequency, info.turns_until_next, info.memory_writes
        )
        if narrow:
            label = label.replace("auto memory", "mem")
        parts += [sep, (label, "" if info.auto_memory else "$text-muted")]
        if info.review_pending:
            parts += [sep, (review_label(info.review_pending, narrow), "$warning")]
        if info.background and not narrow:  # narrow: the app's indicator shows it
            parts += [sep, (f"{self._spinner()} {info.background}", "$accent")]
        self.update(Content.assemble(*parts))
