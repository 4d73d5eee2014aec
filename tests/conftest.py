"""Fixtures shared by every test: an isolated HOME and a clean WAVE_* environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test runs with HOME in a fresh temporary folder and no WAVE_* variables set."""
    return isolate_home(tmp_path_factory.mktemp("home"), monkeypatch)


@pytest.fixture(autouse=True)
def dialogs_read_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot presses keys quicker than anyone reads: in-process app tests answer a dialog the
    moment it opens (the typed-ahead guard's own tests put real pauses back)."""
    from wave_tui.tui import typed_ahead

    monkeypatch.setattr(typed_ahead, "TYPING_PAUSE_S", 0.0)
    monkeypatch.setattr(typed_ahead, "READING_S", 0.0)


def isolate_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME (and the XDG folders) in `home`, no WAVE_* variables, no NO_COLOR."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    for key in list(os.environ):
        if key.startswith("WAVE_"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project root (not a git repository) to run the agent in."""
    root = tmp_path / "project"
    root.mkdir()
    return root


from tests.model_server import ModelServer, model_server  # noqa: E402, F401


@pytest.fixture
async def service_for(model_server: ModelServer, project: Path):  # noqa: F811 (the fixture)
    """`service_for(**environ)` -> a started agent service in `project` on the scripted model
    server (extra environment variables on top); each is destroyed after the test."""
    from wave_tui.agent.service import AgentOptions, AgentService
    from wave_tui.session.factory import create_service

    made: list[AgentService] = []

    def make(**environ: str) -> AgentService:
        env = {"WAVE_BASE_URL": model_server.base_url, "WAVE_MODEL": "test-model", **environ}
        service = create_service(AgentOptions(workdir=project, environ=env))
        service.start()
        made.append(service)
        return service

    yield make
    for service in made:
        await service.destroy()


def default_sigint() -> None:
    """For a child that is sent SIGINT: a run started in the background inherits SIGINT ignored
    (POSIX shells do that for `&` jobs), and Python then never installs its handler."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
