"""Language servers from project settings run code from the repository: in the app they wait
for the user's trust, like project hooks and MCP servers; `wave -p` (the invoker) runs them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.features.lsp.conftest import pylsp_entry, write_settings
from wave_tui.agent.commands import CommandOutput
from wave_tui.session import project_trust
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.types import AgentOptions

pytestmark = pytest.mark.req("LS2")


async def lsp_text(service: object) -> str:
    command = service.commands.get("lsp")  # type: ignore[attr-defined]
    output = await command.run("")
    assert isinstance(output, CommandOutput)
    return output.text


async def test_project_servers_wait_for_trust_in_the_app(code: Path) -> None:
    write_settings(code, pylsp=pylsp_entry())
    service, _ = create_service_with_extensions(AgentOptions(workdir=code, environ={}))
    try:
        assert "LSP" not in [t.name for t in service.all_tools()]
        (request,) = project_trust.trust_requests(service)
        assert request.kind == "lsp"
        assert request.items[0].startswith("pylsp: ")
        assert "not trusted yet (1 in project settings)" in await lsp_text(service)
        await project_trust.grant_trust(service, request)
        assert "LSP" in [t.name for t in service.all_tools()]
        text = await lsp_text(service)
        assert text.startswith("pylsp: not started") and "not trusted" not in text
        assert project_trust.trust_requests(service) == []
    finally:
        await service.destroy()
    again, _ = create_service_with_extensions(AgentOptions(workdir=code, environ={}))
    try:  # remembered: the next session runs them at once
        assert "LSP" in [t.name for t in again.all_tools()]
    finally:
        await again.destroy()


async def test_headless_runs_project_servers_without_asking(code: Path) -> None:
    write_settings(code, pylsp=pylsp_entry())
    service, _ = create_service_with_extensions(
        AgentOptions(workdir=code, environ={}, headless=True)
    )
    try:
        assert "LSP" in [t.name for t in service.all_tools()]
        assert project_trust.trust_requests(service) == []
    finally:
        await service.destroy()
