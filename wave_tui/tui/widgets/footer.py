"""Textual's key footer, recomposed only when what it shows changes.

Textual's `Footer` rebuilds itself (a `FooterKey` per binding, each restyled as it mounts) on
every bindings change; while the chat mounts, focus moves and the status line refreshes, that
is four rebuilds of the same keys before the first frame, each delaying it.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Footer as TextualFooter

# What the footer's compose reads: each shown binding, whether it is enabled, its tooltip.
Shown = tuple[tuple[Binding, bool, str], ...]


class Footer(TextualFooter):
    def __init__(self) -> None:
        super().__init__()
        self._composed: tuple[Shown, bool, bool] | None = None

    async def recompose(self) -> None:
        if not self.is_attached:  # a dialog closed before its queued recompose ran
            return
        palette = self.app.COMMAND_PALETTE_BINDING
        shown = (
            tuple(
                (binding, enabled, tooltip)
                for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items()
                if binding.show or key == palette
            ),
            self.compact,
            self.show_command_palette,
        )
        if shown == self._composed:
            return
        self._composed = shown
        await super().recompose()
