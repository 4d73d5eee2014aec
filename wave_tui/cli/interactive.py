"""`wave` with no -p: the full-screen Textual app (on a local model when asked or nothing else is
configured)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path


def run_interactive(args: argparse.Namespace, workdir: Path) -> int:
    from wave_tui.agent.session import (
        LocalModelError,
        LocalUnavailable,
        prepare_local_endpoint,
    )
    from wave_tui.tui.launch import launch

    try:
        local = prepare_local_endpoint(args, workdir)
    except LocalModelError as exc:
        print(f"wave: {exc}", file=sys.stderr, flush=True)
        return exc.exit_code if isinstance(exc, LocalUnavailable) else 1
    with local or contextlib.nullcontext():
        if local is None:
            return launch(args, workdir)
        return launch(
            args,
            workdir,
            environ=local.environ,
            model_label=local.status_label,
            notice=local.banner,
        )
