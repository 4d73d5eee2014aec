"""The app answers three messages while other processes storm the project with file events (HR13).

The storm (`tests/file_storm.py`) churns the project root, which the app's session watches for
AGENTS.md and for the files its turns touch: every request drains that watch while the storm
keeps filling it. Each message is answered, and an AGENTS.md edit made between two messages is in
the very next request.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Markdown

from tests.extraction_helpers import is_main
from tests.file_storm import storms
from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import fixed_clock, server_env
from tests.tui.helpers import settle
from wave_tui.agent.service import AgentOptions
from wave_tui.session.factory import create_service
from wave_tui.tui.app import make_app
from wave_tui.tui.widgets.chat_items import AssistantMessage


def _main_requests(model_server: ModelServer) -> list[str]:
    return [json.dumps(r.body["messages"]) for r in model_server.requests if is_main(r.body)]


@pytest.mark.req("HR13")
async def test_hr13_the_app_answers_three_messages_while_the_project_storms(
    model_server: ModelServer, project: Path
) -> None:
    agents_md = project / "AGENTS.md"
    agents_md.write_text("Notes before the storm.\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": str(agents_md)}),
        text("first answer"),
        text("second answer"),
        text("third answer"),
        when=is_main,
    )
    with storms(project):
        service = create_service(AgentOptions(workdir=project, environ=server_env(model_server)))
        app = make_app(service.store, service, fixed_clock)
        app.animation_level = "none"
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.press(*"one", "enter")
            await settle(pilot)
            agents_md.write_text("Notes edited amid the storm.\n")
            await pilot.press(*"two", "enter")
            await settle(pilot)
            await pilot.press(*"three", "enter")
            await settle(pilot)
            replies = app.chat_screen.query(AssistantMessage)
            answers = [m.query_one(Markdown).source for m in replies if m.has_text]
    assert answers == ["first answer", "second answer", "third answer"]
    requests = _main_requests(model_server)
    assert len(requests) == 4
    assert "Notes before the storm." in requests[0]
    # The edit made between two messages is in the next request, the storm notwithstanding.
    assert "Notes edited amid the storm." in requests[2]
    assert "Notes edited amid the storm." in requests[3]
