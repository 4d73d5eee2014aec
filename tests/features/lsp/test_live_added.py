"""Language servers named while a session runs are offered from the next turn: the `LSP` tool
and `/lsp` come with the first (the user's at once, the project's once trusted) (FH6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.features.lsp.conftest import fake_entry
from tests.model_server import ModelServer, text
from tests.wire_view import tool_names
from wave_tui.agent.service import AgentService
from wave_tui.session import project_trust
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.types import AgentOptions

pytestmark = pytest.mark.req("FH6")


def settings_changed(service: AgentService, file: Path) -> None:
    file.parent.mkdir(exist_ok=True)
    file.write_text(json.dumps({"lspServers": {"fake": fake_entry("full")}}))
    service.store.refresh()  # what the settings watch does when the file changes
    service.apply_current_settings()


async def test_user_language_servers_added_mid_session_bring_the_tool_and_command(
    model_server: ModelServer, code: Path, isolated_home: Path
) -> None:
    service, _ = create_service_with_extensions(
        AgentOptions(workdir=code, environ=model_server.env())
    )
    try:
        service.start()
        model_server.enqueue(text("one"), text("two"))
        await service.run_turn("hello")
        assert "LSP" not in tool_names(model_server.requests[-1].body)
        assert service.commands.get("lsp") is None
        settings_changed(service, isolated_home / ".wave" / "settings.json")
        await service.run_turn("again")
        assert "LSP" in tool_names(model_server.requests[-1].body)
        assert "fake" in (await service.run_turn("/lsp")).text
    finally:
        await service.destroy()


async def test_project_language_servers_added_mid_session_wait_for_trust(
    model_server: ModelServer, code: Path
) -> None:
    service, _ = create_service_with_extensions(
        AgentOptions(workdir=code, environ=model_server.env())
    )
    try:
        service.start()
        settings_changed(service, code / ".wave" / "settings.json")
        assert "LSP" not in [t.name for t in service.all_tools()]
        (request,) = [r for r in project_trust.trust_requests(service) if r.kind == "lsp"]
        await project_trust.grant_trust(service, request)
        model_server.enqueue(text("one"))
        await service.run_turn("hello")
        assert "LSP" in tool_names(model_server.requests[-1].body)
    finally:
        await service.destroy()
