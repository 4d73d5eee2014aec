"""The start panel's name for the project folder (the Pilot tests see a stable stand-in)."""

from __future__ import annotations

from pathlib import Path

# Imported before the autouse fixture swaps the module's function for the snapshots' stand-in.
from wave_tui.tui.widgets.start_panel import project_label


def test_start_panel_names_the_project_under_home_with_a_tilde(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert project_label(home / "code" / "app", home) == "~/code/app"
    assert project_label(home, home) == "~"
    assert project_label(tmp_path / "elsewhere", home) == str(tmp_path / "elsewhere")
