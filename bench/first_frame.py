"""A whole process from start to its first painted frame, then exit (issue 20, item 4).

Usage: python bench/first_frame.py wave|bare|engine WORKDIR

- wave: the `wave` command itself (`cli/main.py` `main` with no arguments) in WORKDIR: parsing,
  the launch and the app up to its first frame;
- bare: a Textual app with an Input and a Footer, the floor;
- engine: the bare app after pydantic-settings built one small settings class — what any app
  that shows its settings on the first frame through that engine pays first.

The process ends inside the first frame's display (Textual's `App._display`), so what is
measured is exactly start → first frame. Headless, 100×32.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Any

gc.disable()  # as `wave` itself starts (cli/main.py)

from textual.app import App  # noqa: E402  (after gc.disable, like the app)

_display = App._display


def _exit_at_first_frame(self: App[Any], screen: Any, renderable: Any) -> None:
    _display(self, screen, renderable)
    sys.stdout.flush()
    os._exit(0)


App._display = _exit_at_first_frame  # type: ignore[method-assign]
_run = App.run


def _run_headless(self: App[Any], *args: Any, **kwargs: Any) -> Any:
    kwargs.update(headless=True, size=(100, 32))
    return _run(self, *args, **kwargs)


App.run = _run_headless  # type: ignore[method-assign]


def bare_app() -> App[None]:
    from textual.app import ComposeResult
    from textual.widgets import Footer, Input

    class BareApp(App[None]):
        def compose(self) -> ComposeResult:
            yield Input(placeholder="Message")
            yield Footer()

    return BareApp()


def engine_app() -> App[None]:
    from pydantic_settings import BaseSettings, SettingsConfigDict

    class FloorSettings(BaseSettings):
        model_config = SettingsConfigDict(env_prefix="WAVE_")

        model: str | None = None
        base_url: str | None = None
        api_key: str | None = None

    FloorSettings()
    return bare_app()


def run_wave(workdir: Path) -> None:
    """`wave` as typed in WORKDIR (its `App.run` made headless above)."""
    os.chdir(workdir)
    from wave_tui.cli.main import main

    main([])


if __name__ == "__main__":
    kind, workdir = sys.argv[1], Path(sys.argv[2])
    if kind == "wave":
        run_wave(workdir)
    else:
        {"bare": bare_app, "engine": engine_app}[kind]().run()
    sys.exit("the app ended before its first frame")
