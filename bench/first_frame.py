"""A whole process from start to its first painted frame, then exit (issue 20, item 4).

Usage: python bench/first_frame.py wave|bare|engine WORKDIR

- wave: `wave`'s app on WORKDIR, built as `wave` builds it (settings, memory, the chat screen);
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


def wave_app(workdir: Path) -> App[None]:
    from wave_tui.session.facade import AgentOptions, create_session
    from wave_tui.tui.app import make_app

    session = create_session(AgentOptions(workdir=workdir))
    app = make_app(None, session, watch_settings=True)
    app.animation_level = "none"
    return app


if __name__ == "__main__":
    kind, workdir = sys.argv[1], Path(sys.argv[2])
    builders = {"bare": bare_app, "engine": engine_app, "wave": lambda: wave_app(workdir)}
    builders[kind]().run(headless=True, size=(100, 32))
    sys.exit("the app ended before its first frame")
