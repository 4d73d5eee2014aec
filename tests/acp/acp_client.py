"""A test ACP client (the `agent-client-protocol` package's client side) that records what
`wave --acp` sends it and answers permission requests and file-system calls as told."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import acp
from acp import schema

from tests.model_server import ModelServer


class RecordingClient:
    def __init__(self, allow: bool = True) -> None:
        self.allow = allow
        self.updates: list[tuple[str, Any]] = []
        self.permissions: list[schema.ToolCallUpdate] = []
        self.prompt_started = asyncio.Event()

    async def request_permission(
        self, options: list[schema.PermissionOption], session_id: str, tool_call: Any, **kw: Any
    ) -> schema.RequestPermissionResponse:
        self.permissions.append(tool_call)
        chosen = next(
            o for o in options if o.kind == ("allow_once" if self.allow else "reject_once")
        )
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(option_id=chosen.option_id, outcome="selected")
        )

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        self.updates.append((session_id, update))
        self.prompt_started.set()

    def kinds(self) -> list[str]:
        return [u.session_update for _, u in self.updates]

    def agent_text(self) -> str:
        return "".join(
            u.content.text for _, u in self.updates if u.session_update == "agent_message_chunk"
        )

    async def write_text_file(self, **kw: Any) -> None:
        raise acp.RequestError.method_not_found("fs/write_text_file")

    async def read_text_file(self, **kw: Any) -> Any:
        raise acp.RequestError.method_not_found("fs/read_text_file")

    def on_connect(self, conn: Any) -> None:
        pass


def acp_env(server: ModelServer) -> dict[str, str]:
    env = server.env()
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


@contextlib.asynccontextmanager
async def wave_acp(
    client: RecordingClient, server: ModelServer, cwd: Path
) -> AsyncIterator[tuple[Any, asyncio.subprocess.Process]]:
    """`wave --acp` as a subprocess, connected to `client`."""
    async with acp.spawn_agent_process(
        client, sys.executable, "-m", "wave_tui", "--acp", env=acp_env(server), cwd=cwd
    ) as (conn, process):
        yield conn, process


async def initialized(conn: Any) -> schema.InitializeResponse:
    return await conn.initialize(
        protocol_version=acp.PROTOCOL_VERSION,
        client_capabilities=schema.ClientCapabilities(),
        client_info=schema.Implementation(name="test-client", version="1"),
    )


__all__ = ["RecordingClient", "acp_env", "initialized", "os", "wave_acp"]
