"""Installing, updating and removing plugins: what `wave plugin …` and `/plugin` do.

A plugin is staged in a temporary folder beside its place in the cache (copied from its market's
folder, or cloned shallow from git), checked (its manifest must load), then renamed to
`cache/<market>/<name>/<version>/` in one step: a failure at any point leaves the cache, the
records and the settings as they were. Enabling writes `enabledPlugins` in the scope's settings
file; the running sessions pick it up from their next turn.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

from wave_tui.config.paths import WavePaths, safe_component
from wave_tui.config.records import record
from wave_tui.features.plugins.git import shallow_clone
from wave_tui.features.plugins.manifest import ManifestError, load_plugin, write_market_entry
from wave_tui.features.plugins.markets import Marketplace, MarketPlugin, market_named
from wave_tui.features.plugins.state import (
    Installed,
    PluginError,
    Scope,
    enabled_map,
    extra_markets,
    file_layers,
    forget_install,
    installed_plugins,
    now_iso,
    record_install,
    set_enabled,
)
from wave_tui.features.plugins.tree_copy import copy_plugin_tree


@record
class PluginRow:
    """One installed plugin as `wave plugin list` shows it."""

    name: str
    marketplace: str
    version: str
    enabled: bool
    scope: Scope
    path: Path
    # Enabled, but another enabled plugin of the same name loads instead (its id).
    shadowed_by: str | None = None

    def to_json(self) -> dict[str, object]:
        row: dict[str, object] = {
            "name": self.name,
            "marketplace": self.marketplace,
            "version": self.version,
            "enabled": self.enabled,
            "scope": self.scope,
        }
        if self.shadowed_by is not None:
            row["shadowedBy"] = self.shadowed_by
        return row


def split_id(plugin_id: str) -> tuple[str, str]:
    name, at, market = plugin_id.rpartition("@")
    if not at or not name or not market:
        raise PluginError(f"{plugin_id}: name a plugin as NAME@MARKET")
    return name, market


def _project(paths: WavePaths, scope: Scope) -> str | None:
    return None if scope == "user" else str(paths.project_root)


def _mine(paths: WavePaths, plugin_id: str | None = None) -> list[Installed]:
    """The install records that apply here: user ones, and this project's."""
    project = str(paths.project_root)
    return [
        r
        for r in installed_plugins(paths)
        if (plugin_id is None or r.plugin_id == plugin_id)
        and (r.scope == "user" or r.project_path == project)
    ]


# req: PG5
# req: FH10
def list_plugins(paths: WavePaths) -> list[PluginRow]:
    """The installed plugins; an enabled one whose name an earlier enabled one already takes
    says which (a session loads the first of them only, in the settings' order)."""
    enabled = enabled_map(file_layers(paths))
    mine = _mine(paths)
    first: dict[str, str] = {}
    for plugin_id, (on, _scope) in enabled.items():
        names = {r.name for r in mine if r.plugin_id == plugin_id}
        for name in names if on else ():
            first.setdefault(name, plugin_id)
    rows = []
    for r in mine:
        on = enabled.get(r.plugin_id, (False, r.scope))[0]
        winner = first.get(r.name)
        shadowed = winner if on and winner is not None and winner != r.plugin_id else None
        rows.append(PluginRow(r.name, r.market, r.version, on, r.scope, r.install_path, shadowed))
    return rows


async def _market(paths: WavePaths, name: str) -> Marketplace:
    extra = await asyncio.to_thread(lambda: extra_markets(file_layers(paths)))
    return await market_named(paths, name, extra)


async def _stage(
    paths: WavePaths, market: Marketplace, entry: MarketPlugin
) -> tuple[Path, Path, str, str | None]:
    """The plugin copied or cloned into a fresh folder: (staging dir, plugin dir, version,
    commit). The caller removes the staging dir."""
    root = paths.plugin_cache_dir / safe_component(market.name)
    staging = await asyncio.to_thread(_staging_dir, root)
    target = staging / "plugin"
    commit: str | None = None
    try:
        if entry.source.kind == "git":
            clone = staging / "clone"
            commit = await shallow_clone(entry.source.location, clone, f"plugin {entry.name}")
            # A clone checks links out as links: the cache gets its regular files only.
            await asyncio.to_thread(copy_plugin_tree, clone, target)
            await asyncio.to_thread(shutil.rmtree, clone, True)
        else:
            source = (market.folder / entry.source.location).resolve()
            if not source.is_relative_to(market.folder.resolve()):
                raise PluginError(f"plugin {entry.name}: its source leaves the marketplace folder")
            if not source.is_dir():
                raise PluginError(
                    f"plugin {entry.name}: source folder {entry.source.location} is missing"
                )
            await asyncio.to_thread(copy_plugin_tree, source, target)
        if entry.manifest is not None:  # a `"strict": false` entry is the plugin's manifest
            await asyncio.to_thread(write_market_entry, target, entry.manifest)
        try:
            plugin = await asyncio.to_thread(load_plugin, target, entry.name)
        except ManifestError as exc:
            raise PluginError(f"plugin {entry.name} not installed: {exc}") from exc
        if plugin.name != entry.name:
            raise PluginError(
                f"plugin {entry.name} not installed: its manifest names it {plugin.name!r}"
            )
        version = plugin.version or entry.version or (commit or "")[:12] or "0.0.0"
        return staging, target, version, commit
    except BaseException:
        await asyncio.to_thread(shutil.rmtree, staging, True)
        raise


def _staging_dir(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".staging-", dir=root))


def _place(paths: WavePaths, market: str, name: str, version: str, staged: Path) -> Path:
    """Rename the staged folder to its version's place (an existing one is kept)."""
    final = paths.plugin_cache_dir / safe_component(market) / safe_component(name)
    final = final / safe_component(version)
    if not final.exists():
        final.parent.mkdir(parents=True, exist_ok=True)
        try:
            staged.rename(final)
        except OSError:
            if not final.is_dir():  # not another install of this same version, placed first
                raise
    return final


# req: PG6
async def install_plugin(paths: WavePaths, plugin_id: str, scope: Scope) -> Installed:
    name, market_name = split_id(plugin_id)
    market = await _market(paths, market_name)
    entry = market.get(name)
    if entry is None:
        raise PluginError(f"marketplace {market_name} has no plugin {name!r}")
    staging, target, version, commit = await _stage(paths, market, entry)
    try:
        final = await asyncio.to_thread(_place, paths, market_name, name, version, target)
    finally:
        await asyncio.to_thread(shutil.rmtree, staging, True)
    item = Installed(
        f"{name}@{market_name}", scope, final, version, now_iso(), _project(paths, scope), commit
    )
    await asyncio.to_thread(record_install, paths, item)
    await asyncio.to_thread(set_enabled, paths, item.plugin_id, scope, True)
    return item


def _only(paths: WavePaths, plugin_id: str, scope: Scope | None) -> Installed:
    mine = _mine(paths, plugin_id)
    if scope is not None:
        mine = [r for r in mine if r.scope == scope]
    if not mine:
        where = f" in the {scope} scope" if scope else ""
        raise PluginError(f"plugin {plugin_id} is not installed{where}")
    if len(mine) > 1:
        raise PluginError(
            f"plugin {plugin_id} is installed in several scopes; name one with --scope"
        )
    return mine[0]


async def uninstall_plugin(paths: WavePaths, plugin_id: str, scope: Scope | None) -> Installed:
    item = _only(paths, plugin_id, scope)
    await asyncio.to_thread(set_enabled, paths, plugin_id, item.scope, None)
    await asyncio.to_thread(forget_install, paths, plugin_id, item.scope, item.project_path)
    await asyncio.to_thread(_drop_unused, paths, item.install_path)
    return item


def _drop_unused(paths: WavePaths, folder: Path) -> None:
    """Remove a cached version no install record names any more."""
    if any(r.install_path == folder for r in installed_plugins(paths)):
        return
    if folder.is_relative_to(paths.plugin_cache_dir):
        shutil.rmtree(folder, ignore_errors=True)


# req: PG10
async def set_plugin_enabled(paths: WavePaths, plugin_id: str, scope: Scope, value: bool) -> None:
    if not _mine(paths, plugin_id):
        raise PluginError(f"plugin {plugin_id} is not installed")
    await asyncio.to_thread(set_enabled, paths, plugin_id, scope, value)


async def update_plugin(paths: WavePaths, plugin_id: str) -> tuple[str, str]:
    """Fetch the market and install the plugin's listed version where it is installed:
    (old version, new version). A failure leaves the installed version in force."""
    from wave_tui.features.plugins.markets import update_market

    name, market_name = split_id(plugin_id)
    mine = _mine(paths, plugin_id)
    if not mine:
        raise PluginError(f"plugin {plugin_id} is not installed")
    market = await update_market(paths, market_name)
    entry = market.get(name)
    if entry is None:
        raise PluginError(f"marketplace {market_name} no longer lists {name!r}")
    staging, target, version, commit = await _stage(paths, market, entry)
    try:
        old = mine[0].version
        if version == old:
            return old, version
        final = await asyncio.to_thread(_place, paths, market_name, name, version, target)
    finally:
        await asyncio.to_thread(shutil.rmtree, staging, True)
    for item in mine:
        new = Installed(
            plugin_id, item.scope, final, version, item.installed_at, item.project_path, commit
        )
        await asyncio.to_thread(record_install, paths, new)
    for item in mine:
        await asyncio.to_thread(_drop_unused, paths, item.install_path)
    return old, version
