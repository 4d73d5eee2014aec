"""A fully wired session (the checkpoint hook, language servers from the user's settings) over
the scripted model server, with edits allowed without asking."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions

MakeSession = Callable[..., AgentSession]


def user_settings(**values: Any) -> None:
    """The user's settings file: edits run without asking, plus `values`."""
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    data = {"permissions": {"defaultMode": "acceptEdits"}, **values}
    settings.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
async def make_session(model_server: ModelServer, project: Path) -> AsyncIterator[MakeSession]:
    """`make_session()` -> a session in `project` (auto memory off); closed after the test."""
    sessions: list[AgentSession] = []

    def make() -> AgentSession:
        environ = {
            "WAVE_BASE_URL": model_server.base_url,
            "WAVE_API_KEY": "k",
            "WAVE_MODEL": "test-model",
            "WAVE_DISABLE_AUTO_MEMORY": "1",
        }
        session = create_session(AgentOptions(workdir=project, environ=environ))
        sessions.append(session)
        return session

    yield make
    for session in sessions:
        await session.close()
