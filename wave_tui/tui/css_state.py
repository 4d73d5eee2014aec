"""What the app's styles were computed from, so an unchanged stylesheet is not re-applied.

Textual re-parses the whole stylesheet and restyles every node of every screen each time a
screen is shown that it has not styled since the last change: a new mode
screen's first showing cost a full restyle twice over. A widget is styled from the current
stylesheet when it mounts, so when neither the theme's variables nor an app-wide source changed
since the last refresh there is nothing to redo. A widget's own default CSS is scoped to its type
and is added before the first one mounts: it cannot change the style of a node already styled.
"""

from __future__ import annotations

from typing import Any

from textual.app import App

CssState = tuple[dict[str, str], dict[tuple[str, str], str]]


def css_state(app: App[Any]) -> CssState:
    sources = {
        where: source.content
        for where, source in app.stylesheet.source.items()
        if not (source.is_defaults and source.scope)
    }
    return app.get_css_variables(), sources
