"""`/compact` in the app (MM7): the summary is made first and previewed; nothing changes until
the user applies it (the preview screen is `screens/compact_preview`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wave_tui.tui.app import WaveApp

CANCELLED = "Compaction cancelled: the conversation is as it was."


# req: MM7
def preview_compaction(app: WaveApp, focus: str | None) -> None:
    """Make the summary (in a worker: the app stays responsive), then show the preview."""
    app.run_worker(
        _preview(app, focus),
        group="compact-preview",
        exclusive=True,
        exit_on_error=False,
        name="preparing the compaction",
    )


async def _preview(app: WaveApp, focus: str | None) -> None:
    from wave_tui.tui.screens.compact_preview import CompactPreview

    session = app.session
    prepared = await session.prepare_compaction(focus)
    if prepared is None:
        return  # the failure is already a notice in the chat

    async def answered(summary: str | None) -> None:
        if summary is None:
            app.notify(CANCELLED, markup=False)
            return
        chosen = prepared if summary == prepared.result.summary else prepared.with_summary(summary)
        await session.apply_compaction(chosen)  # its notice says what happened

    app.push_screen(CompactPreview(prepared.preview()), answered)
