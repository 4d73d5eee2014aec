"""An MCP call's progress on its own row in the chat (MA4): a real FastMCP 2.x server over stdio
reports progress, then holds the call open until the test creates its gate file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Static

from tests.mcp.pypi_servers import fastmcp_python
from tests.model_server import ModelServer, text, tool_call
from tests.tui.command_ui_helpers import extended_app
from tests.tui.conftest import server_env
from tests.tui.helpers import settle, wait_until
from wave_tui.tui.widgets.chat_items import NoticeLine, ToolBlock

FASTMCP2 = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "fastmcp2_server.py"
TOOL = "mcp__fm2__slow"
STARTUP_TRIES = 1500  # 20 ms steps: the server's venv imports FastMCP before it answers


def header(row: ToolBlock) -> str:
    return str(row.query_one(".tool-header", Static).render())


@pytest.mark.req("MA4")
async def test_ma4_the_running_calls_row_shows_its_latest_progress_until_the_result(
    project: Path, model_server: ModelServer, short_tmp: Path
) -> None:
    gate = short_tmp / "gate"
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    entry = {"command": str(fastmcp_python()), "args": [str(FASTMCP2)]}
    settings.write_text(
        json.dumps(
            {
                "mcpServers": {"fm2": entry},
                "enableExec": False,
                "permissions": {"allow": [TOOL]},
            }
        )
    )
    model_server.enqueue(tool_call(TOOL, {"steps": 3, "gate": str(gate)}), text("done"))
    app = extended_app(project, server_env(model_server))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"go", "enter")

        def rows() -> list[ToolBlock]:
            return [r for r in app.chat_screen.query(ToolBlock) if r.tool_name == TOOL]

        def progressed() -> bool:
            return any("3/3" in r.status for r in rows())

        await wait_until(pilot, progressed, tries=STARTUP_TRIES)
        (row,) = rows()
        assert row.status == "… 3/3 — reading part 3"  # the latest line, not one per step
        assert header(row).startswith(f"⏺ {TOOL}") and "… 3/3 — reading part 3" in header(row)
        notices = [str(n.render()) for n in app.chat_screen.query(NoticeLine)]
        assert not any("reading part" in n for n in notices), notices
        gate.touch()
        await settle(pilot)
        assert row.status.startswith("✓"), row.status
        assert "reading part" not in header(row)
        await app.session.close()
