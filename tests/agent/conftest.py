from __future__ import annotations

from pathlib import Path

import pytest

from tests.model_server import ModelServer
from wave_tui.agent.service import AgentOptions, AgentService


@pytest.fixture
async def make_service(model_server: ModelServer, project: Path):
    """Builds services; every one is destroyed after the test (destroy is idempotent)."""
    services: list[AgentService] = []

    def make(**kw) -> AgentService:
        environ = {
            "WAVE_BASE_URL": model_server.base_url,
            "WAVE_API_KEY": "k",
            "WAVE_MODEL": "test-model",
            **kw.pop("environ", {}),
        }
        service = AgentService(AgentOptions(workdir=project, environ=environ, **kw))
        services.append(service)
        return service

    yield make
    for service in services:
        await service.destroy()
