"""The one-line status under the chat: model, context, cache hits, auto memory, background work."""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from wave_tui.tui.format import auto_memory_label, short_tokens

SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


@dataclass(frozen=True)
class StatusInfo:
    model: str | None = None
    context_tokens: int | None = None
    cache_percent: int | None = None
    auto_memory: bool = True
    frequency: int = 1
    turns_until_next: int | None = None
    busy: bool = False
    background: str | None = None  # what runs in the background (extraction...), None when idle


class StatusLine(Static):
    """Redrawn from a `StatusInfo`; a spinner turns while a turn or background work runs."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.info = StatusInfo()
        self._frame = 0
        self._timer: Timer | None = None

    def on_mount(self) -> None:
        self._timer = self.set_interval(0.1, self._tick, pause=True)
        self._redraw()

    def update_info(self, **changes: object) -> None:
        self.info = replace(self.info, **changes)  # type: ignore[arg-type]
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

    def _redraw(self) -> None:
        info = self.info
        sep = ("  │  ", "$text-muted")
        parts: list[str | tuple[str, str]] = []
        if info.busy:
            parts += [(f"{self._spinner()} working", "$accent"), sep]
        if info.model:
            parts.append((info.model, "bold"))
        else:
            parts.append(("no model configured", "$warning"))
        if info.context_tokens is not None:
            parts += [sep, f"ctx {short_tokens(info.context_tokens)} tokens"]
        if info.cache_percent is not None:
            parts += [sep, f"cache {info.cache_percent}%"]
        label = auto_memory_label(info.auto_memory, info.frequency, info.turns_until_next)
        parts += [sep, (label, "" if info.auto_memory else "$text-muted")]
        if info.background:
            parts += [sep, (f"{self._spinner()} {info.background}", "$accent")]
        self.update(Content.assemble(*parts))
