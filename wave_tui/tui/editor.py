"""Open a file in the user's `$VISUAL` / `$EDITOR`, handing the terminal over and back.

`App.suspend()` resumes the app only when its body returns: a mistyped editor (OSError) would
leave the terminal suspended for good. The body here never raises, and the error is reported
after the app is back (UX5).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping
from pathlib import Path

from textual.app import App, SuspendNotSupported


def editor_command(environ: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if environ is None else environ
    return env.get("VISUAL") or env.get("EDITOR") or None


def _run_editor(argv: list[str]) -> str | None:
    """The editor's failure as one line, or None (it ran)."""
    try:
        subprocess.run(argv, check=False)
    except OSError as exc:
        return f"Could not start {shlex.join(argv[:1])}: {exc.strerror or exc}"
    return None


# req: UX5
def open_in_editor(app: App[object], path: Path) -> bool:
    """Edit `path`; False (and a notification) when there is no editor or it failed."""
    editor = editor_command()
    if not editor:
        app.notify("Set $EDITOR to open memories in your editor.", severity="warning")
        return False
    try:
        argv = [*shlex.split(editor), str(path)]
    except ValueError as exc:
        app.notify(f"$EDITOR cannot be read: {exc}", severity="error", markup=False)
        return False
    error: str | None
    try:
        with app.suspend():
            error = _run_editor(argv)
    except SuspendNotSupported:
        app.notify("This terminal cannot hand over to an editor.", severity="warning")
        return False
    if error is not None:
        app.notify(error, severity="error", markup=False)
        return False
    return True
