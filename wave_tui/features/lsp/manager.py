"""The language servers of one session: which server handles a file, one running server per
workspace and server, their states for `/lsp`, and ending them all with the session.

Light on purpose: the typed server module (and `lsprotocol` with it) is imported in a worker
thread the first time a server is needed, so neither the start-up of wave nor the event loop
pays for it.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wave_tui.config.records import record
from wave_tui.features.lsp.config import LspConfig, LspServerConfig, merge, parse_servers

if TYPE_CHECKING:
    from types import ModuleType

    from wave_tui.features.lsp.server import LanguageServer


@record
class ServerStatus:
    name: str
    command: str
    extensions: tuple[str, ...]
    state: str
    workspace: Path | None
    last_error: str | None
    restarts: int
    source: str


class LspManager:
    # req: LS2
    def __init__(self, config: LspConfig, root: Path) -> None:
        self.root = root
        self.config = config
        self._servers: dict[tuple[str, Path], LanguageServer] = {}
        self._creating = asyncio.Lock()

    # -- configuration -------------------------------------------------------------------------
    def add_servers(self, raw: Mapping[str, Any], source: str) -> tuple[str, ...]:
        """More servers in the `{NAME: {...}}` shape (a plugin's `.lsp.json`); its problems."""
        extra = parse_servers(raw, source)
        self.config = merge([self.config, extra])
        return extra.problems

    def config_for(self, path: Path) -> tuple[LspServerConfig, str] | None:
        """The server that handles `path` and the file's language; the last configured wins."""
        for server in reversed(self.config.servers):
            language = server.language_of(path)
            if language is not None:
                return server, language
        return None

    def handles(self, path: Path) -> bool:
        return self.config_for(path) is not None

    # -- servers -------------------------------------------------------------------------------
    def workspace_of(self, path: Path) -> Path:
        """One server per workspace: the project root for files inside it, else the file's folder."""
        return self.root if path.is_relative_to(self.root) else path.parent

    def running(self, path: Path) -> LanguageServer | None:
        """The server for `path` if it was started already (a Read never starts one)."""
        found = self.config_for(path)
        if found is None:
            return None
        server = self._servers.get((found[0].name, self.workspace_of(path)))
        return server if server is not None and server.state == "running" else None

    async def server_for(self, path: Path) -> tuple[LanguageServer, str] | None:
        """The running server for `path` (started on first use) and the file's language."""
        found = self.config_for(path)
        if found is None:
            return None
        config, language = found
        key = (config.name, self.workspace_of(path))
        async with self._creating:
            server = self._servers.get(key)
            if server is None:
                module = await _server_module()
                server = self._servers[key] = module.LanguageServer(config, key[1])
        await server.ensure_running()
        return server, language

    def statuses(self) -> list[ServerStatus]:
        out = []
        started = {name: server for (name, _), server in self._servers.items()}
        for config in self.config.servers:
            server = started.get(config.name)
            out.append(
                ServerStatus(
                    config.name,
                    " ".join([config.command, *config.args]),
                    tuple(config.extension_to_language),
                    server.state if server is not None else "not started",
                    server.root if server is not None else None,
                    server.last_error if server is not None else None,
                    server.restarts if server is not None else 0,
                    config.source,
                )
            )
        return out

    async def aclose(self) -> None:
        servers = list(self._servers.values())
        await asyncio.gather(*(s.stop() for s in servers), return_exceptions=True)


async def _load(name: str) -> ModuleType:
    """A module of this feature that needs `lsprotocol` (~0.3 s to import): off the event loop."""
    full = f"wave_tui.features.lsp.{name}"
    module = sys.modules.get(full)
    if module is None:
        module = await asyncio.to_thread(importlib.import_module, full)
    return module


async def _server_module() -> ModuleType:
    return await _load("server")


async def load_operations() -> ModuleType:
    return await _load("operations")
