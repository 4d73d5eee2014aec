"""A real terminal check of images (IM2, IM7): an image file's path pasted (bracketed paste, as
a terminal's drag-and-drop delivers it) becomes `@path`, and the chat names the image sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import image_files as img
from tests.tui.test_tmux import REPLY, Tmux, model_server_process, start_wave, tmux

__all__ = ["model_server_process", "tmux"]  # the fixtures, for this module's tests


@pytest.mark.req("IM2")
@pytest.mark.req("IM7")
def test_a_pasted_image_path_is_sent_and_shown_at_80x24(
    tmux: Tmux, model_server_process: str, tmp_path: Path
) -> None:
    exit_file = start_wave(tmux, model_server_process, tmp_path, (80, 24))
    shot = img.screenshot_png(tmp_path / "project" / "bug shot.png", (2400, 1600))
    tmux.wait_for_text("Message wave")
    tmux.run("send-keys", "-t", tmux.session, "-l", "what is wrong here ")
    tmux.run("set-buffer", "-b", "wave", f"'{shot}'")
    tmux.run("paste-buffer", "-p", "-b", "wave", "-t", tmux.session)
    tmux.wait_for_text("shot.png")  # as `@…/bug\\ shot.png`, wrapped at 80 columns
    tmux.run("send-keys", "-t", tmux.session, "Enter")
    tmux.wait_for_text(REPLY)
    assert "(image: bug shot.png, 2400×1600" in tmux.screen()
    tmux.run("send-keys", "-t", tmux.session, "C-q")
    tmux.wait_for(exit_file.exists, "the app to end")
    assert exit_file.read_text().strip() == "0"
