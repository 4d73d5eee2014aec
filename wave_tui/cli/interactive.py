"""`wave` with no -p: the full-screen Textual app."""

from __future__ import annotations

import argparse
from pathlib import Path


def run_interactive(args: argparse.Namespace, workdir: Path) -> int:
    from wave_tui.tui.launch import launch

    return launch(args, workdir)
