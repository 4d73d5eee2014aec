"""Plugins and marketplaces for the front ends: `wave plugin …` and the `/plugin` screen.

Works on the files alone (no agent needed): each call does one operation and returns plain
records, or raises `PluginError` whose message is the one line to show. Running sessions see a
change from their next turn (they read `enabledPlugins` and the install records live).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.plugins.install import (
    PluginRow,
    install_plugin,
    list_plugins,
    set_plugin_enabled,
    uninstall_plugin,
    update_plugin,
)
from wave_tui.features.plugins.markets import (
    add_market,
    parse_source,
    read_marketplace,
    remove_market,
    update_market,
)
from wave_tui.features.plugins.state import (
    PluginError,
    Scope,
    extra_markets,
    file_layers,
    known_markets,
)


@record
class MarketRow:
    name: str
    source: str  # the git URL or the folder
    kind: str  # "git" | "directory"
    known: bool  # False: only named in `extraKnownMarketplaces`, not fetched yet


@record
class OfferedPlugin:
    """A plugin a market lists, with whether and how it is installed here."""

    name: str
    market: str
    description: str
    version: str
    installed: PluginRow | None

    @property
    def plugin_id(self) -> str:
        return f"{self.name}@{self.market}"


class PluginAccess:
    def __init__(self, paths: WavePaths) -> None:
        self.paths = paths

    # -- markets ---------------------------------------------------------------------------------
    def markets(self) -> list[MarketRow]:
        known = known_markets(self.paths)
        rows = [MarketRow(m.name, m.source.location, m.source.kind, True) for m in known.values()]
        for name, source in extra_markets(file_layers(self.paths)).items():
            if name not in known:
                rows.append(MarketRow(name, source.location, source.kind, False))
        return rows

    async def add_market(self, source: str, cwd: Path) -> str:
        market = await add_market(self.paths, parse_source(source, cwd))
        return market.name

    async def update_market(self, name: str) -> int:
        """Fetch a market's listing; returns how many plugins it lists."""
        return len((await update_market(self.paths, name)).plugins)

    async def remove_market(self, name: str) -> None:
        await remove_market(self.paths, name)

    async def offered(self, market: str) -> list[OfferedPlugin]:
        known = (await asyncio.to_thread(known_markets, self.paths)).get(market)
        if known is None:
            raise PluginError(f"unknown marketplace {market!r}")
        try:
            listing = await asyncio.to_thread(read_marketplace, known.install_location)
        except ValueError as exc:
            raise PluginError(str(exc)) from exc
        rows = await asyncio.to_thread(list_plugins, self.paths)
        installed = {(r.name, r.marketplace): r for r in rows}
        return [
            OfferedPlugin(p.name, market, p.description, p.version, installed.get((p.name, market)))
            for p in listing.plugins
        ]

    # -- plugins ---------------------------------------------------------------------------------
    def installed(self) -> list[PluginRow]:
        return list_plugins(self.paths)

    async def install(self, plugin_id: str, scope: Scope = "user") -> str:
        """Install and enable; returns the version installed."""
        return (await install_plugin(self.paths, plugin_id, scope)).version

    async def uninstall(self, plugin_id: str, scope: Scope | None = None) -> None:
        await uninstall_plugin(self.paths, plugin_id, scope)

    async def enable(self, plugin_id: str, scope: Scope = "user") -> None:
        await set_plugin_enabled(self.paths, plugin_id, scope, True)

    async def disable(self, plugin_id: str, scope: Scope = "user") -> None:
        await set_plugin_enabled(self.paths, plugin_id, scope, False)

    async def update(self, plugin_id: str) -> tuple[str, str]:
        return await update_plugin(self.paths, plugin_id)


__all__ = ["MarketRow", "OfferedPlugin", "PluginAccess", "PluginError", "PluginRow"]
