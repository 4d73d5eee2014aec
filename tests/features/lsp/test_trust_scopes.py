"""Language servers from every non-user settings file wait for trust: `.wave/settings.local.json`
can be committed like `.wave/settings.json`, so its servers are the project's code too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.features.lsp.conftest import fake_entry
from wave_tui.features.lsp.wiring import lsp_of
from wave_tui.session import project_trust
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.types import AgentOptions

pytestmark = pytest.mark.req("HR3")


def _write(project: Path, name: str, pid_file: Path) -> None:
    folder = project / ".wave"
    folder.mkdir(exist_ok=True)
    entry = fake_entry("full", FAKE_LSP_PID_FILE=str(pid_file))
    (folder / name).write_text(json.dumps({"lspServers": {"fake": entry}}))


@pytest.mark.parametrize("name", ["settings.local.json", "settings.json"])
async def test_project_servers_of_any_project_file_start_only_once_trusted(
    code: Path, tmp_path: Path, name: str
) -> None:
    pid_file = tmp_path / "started.pids"
    _write(code, name, pid_file)
    service, _ = create_service_with_extensions(AgentOptions(workdir=code, environ={}))
    try:
        wiring = lsp_of(service)
        assert wiring is not None
        assert "LSP" not in [t.name for t in service.all_tools()]
        assert await wiring.manager.server_for(code / "app.py") is None
        assert not pid_file.exists()  # nothing of the project's ran
        (request,) = [r for r in project_trust.trust_requests(service) if r.kind == "lsp"]
        assert request.items[0].startswith("fake: ")
        await project_trust.grant_trust(service, request)
        assert "LSP" in [t.name for t in service.all_tools()]
        started = await wiring.manager.server_for(code / "app.py")
        assert started is not None
        assert pid_file.read_text().strip()  # the trusted server really started
    finally:
        await service.destroy()


async def test_the_user_file_servers_need_no_trust(code: Path, isolated_home: Path) -> None:
    folder = isolated_home / ".wave"
    folder.mkdir(exist_ok=True)
    (folder / "settings.json").write_text(json.dumps({"lspServers": {"fake": fake_entry("full")}}))
    service, _ = create_service_with_extensions(AgentOptions(workdir=code, environ={}))
    try:
        assert "LSP" in [t.name for t in service.all_tools()]
        assert [r for r in project_trust.trust_requests(service) if r.kind == "lsp"] == []
    finally:
        await service.destroy()
