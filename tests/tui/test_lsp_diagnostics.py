"""The app shows what a language server said of an edit under the edit's diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Static

from tests.features.lsp.conftest import APP, HELPERS, pylsp_entry
from tests.model_server import ModelServer, text, tool_call
from tests.tui.helpers import settle, wait_until
from tests.tui.test_chat_view import full_app, line_styles, type_line


@pytest.mark.req("LS4")
async def test_an_edit_that_breaks_the_code_shows_the_errors_under_its_diff(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    (project / "helpers.py").write_text(HELPERS)
    (project / "app.py").write_text(APP)
    # The user's own settings: a project's servers would wait for trust in the app.
    user_settings = isolated_home / ".wave" / "settings.json"
    user_settings.parent.mkdir(parents=True, exist_ok=True)
    user_settings.write_text(
        json.dumps(
            {
                "lspServers": {"pylsp": pylsp_entry()},
                "lspDiagnosticsTimeout": 30,
                "permissions": {"defaultMode": "acceptEdits"},
            }
        )
    )
    model_server.enqueue(
        tool_call("Read", {"file_path": "app.py"}),
        tool_call(
            "Edit",
            {"file_path": "app.py", "old_string": 'greet("wave")', "new_string": 'gret("wave")'},
        ),
        text("done"),
    )
    app = full_app(project, model_server)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_line(pilot, "rename")
        log = app.chat_screen.query_one("#chat-log")
        await wait_until(pilot, lambda: bool(log.query(".tool-output-text.-diff")), 3000)
        await settle(pilot)
        (diff,) = [s for s in log.query(".tool-output-text.-diff") if isinstance(s, Static)]
        styles = line_styles(diff.visual)  # type: ignore[arg-type]
        error_line = "app.py:5:11: error [pyflakes]: undefined name 'gret'"
        assert error_line in styles and "error" in styles[error_line]
        assert '+    print(gret("wave"))' in styles
        headers = [s for s in log.query(".tool-header") if isinstance(s, Static)]
        assert any("1 LSP error" in str(h.visual) for h in headers)
