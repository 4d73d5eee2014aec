"""A session built as the app builds one (factory, extensions), against the scripted server;
helpers that tell the main agent's requests from its subagents'."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer
from tests.wire_view import chats, is_child
from wave_tui.agent.service import AgentService
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.types import AgentOptions

ServiceMaker = Callable[..., Awaitable[AgentService]]
WAIT_LIMIT_S = 60.0  # a condition never met fails the test instead of hanging it


def asks(word: str) -> Callable[[dict[str, Any]], bool]:
    return lambda b: is_child(b) and word in json.dumps(b["messages"][-1])


def is_main(body: dict[str, Any]) -> bool:
    return not is_child(body)


def child_requests(server: ModelServer, word: str = "") -> list[dict[str, Any]]:
    return [b for b in chats(server) if is_child(b) and word in json.dumps(b)]


async def until(condition: Callable[[], bool]) -> None:
    """Wait for `condition` (other threads and tasks make it true)."""
    async with asyncio.timeout(WAIT_LIMIT_S):
        while not condition():
            await asyncio.sleep(0.01)


def write_workflow(folder: Path, name: str, code: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.js"
    path.write_text(code)
    return path


def write_settings(home: Path, **settings: Any) -> None:
    folder = home / ".wave"
    folder.mkdir(exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings))


@pytest.fixture
async def services(model_server: ModelServer, project: Path) -> AsyncIterator[ServiceMaker]:
    made: list[AgentService] = []

    async def make(**options: Any) -> AgentService:
        service, _ = create_service_with_extensions(
            AgentOptions(
                workdir=project,
                environ={**model_server.env(), "WAVE_DISABLE_AUTO_MEMORY": "1"},
                **options,
            )
        )
        service.start()
        made.append(service)
        return service

    yield make
    for service in made:
        await service.destroy()
