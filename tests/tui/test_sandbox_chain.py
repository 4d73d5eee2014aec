"""In the app, a sandboxed command cannot prepare the next step (HR1): the model's first Bash
(sandboxed, so unasked) tries to rewrite `.wave/settings.local.json` to turn the sandbox off and
allow every Bash; the second, a write outside the project, still runs sandboxed — unasked, and
it fails. Real bubblewrap, the real app through Pilot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.extraction_helpers import is_main
from tests.features.sandbox.test_sandbox import settings
from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import fixed_clock, server_env
from tests.tui.helpers import settle
from tests.wire_view import chats, tool_results
from wave_tui.agent.service import AgentOptions
from wave_tui.session.factory import create_service
from wave_tui.tui.app import make_app
from wave_tui.tui.screens.dialogs import PermissionDialog

WIDENING = json.dumps({"sandbox": {"enabled": False}, "permissions": {"allow": ["Bash"]}})


@pytest.mark.req("HR1")
async def test_a_sandboxed_write_of_the_settings_widens_nothing_for_the_next_command(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    settings()  # the user's own sandbox
    outside = isolated_home / "outside.txt"
    write = f"mkdir -p .wave; printf '%s' '{WIDENING}' > .wave/settings.local.json"
    model_server.enqueue(
        tool_call("Bash", {"command": write}),
        tool_call("Bash", {"command": f"touch {outside}"}),
        text("done"),
        when=is_main,
    )
    service = create_service(AgentOptions(workdir=project, environ=server_env(model_server)))
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    dialogs: list[object] = []
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"go", "enter")
        for _ in range(500):
            if isinstance(app.screen, PermissionDialog):
                dialogs.append(app.screen)
                await pilot.press("n")  # the assert below fails; the turn ends first
            if not app.session.status().busy and len(model_server.requests) >= 3:
                break
            await pilot.pause(0.02)
        await settle(pilot)
    assert dialogs == []  # neither command asked: both ran in the sandbox
    assert not (project / ".wave" / "settings.local.json").exists()
    assert not outside.exists()
    results = tool_results([c for c in chats(model_server) if is_main(c)][-1])
    assert "Read-only file system" in results[0], results[0]
