"""Marketplaces: a folder or a git repository holding `.wave-plugin/marketplace.json` or
`.claude-plugin/marketplace.json` (`name`, `owner`, `plugins: [{name, source, description,
version}]`, `source` a relative path or `{"source": "git", "url": …}`).

A git market is cloned shallow into `~/.wave/plugins/marketplaces/<name>/` (through a temporary
folder renamed in place, so a failed clone leaves nothing); `update` fetches. A folder market is
read where it is. Markets named in settings `extraKnownMarketplaces` are fetched on first use.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.plugins.git import fetch_latest, shallow_clone
from wave_tui.features.plugins.manifest import (
    MARKETPLACE_FILE,
    PLUGIN_NAME,
    ManifestError,
    manifest_path,
    read_json_object,
)
from wave_tui.features.plugins.state import (
    KnownMarket,
    MarketSource,
    PluginError,
    forget_market,
    known_markets,
    now_iso,
    save_market,
    source_of,
)

_GITHUB_SHORT = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_GIT_URL = re.compile(r"^(https?|ssh|git|file)://|^[\w.-]+@[\w.-]+:")


@record
class MarketPlugin:
    name: str
    description: str
    version: str  # "" when the market does not say
    source: MarketSource  # "directory": a path relative to the market; "git": a URL
    # A `"strict": false` entry is the plugin's manifest itself (its component lists and inline
    # configs): kept with the installed copy, where `load_plugin` reads it.
    manifest: Mapping[str, Any] | None = None


@record
class Marketplace:
    name: str
    owner: str
    description: str
    folder: Path
    plugins: tuple[MarketPlugin, ...]

    def get(self, name: str) -> MarketPlugin | None:
        return next((p for p in self.plugins if p.name == name), None)


# req: PG4
def parse_source(text: str, cwd: Path) -> MarketSource:
    """What `wave plugin marketplace add SOURCE` means: a folder, a git URL, or `owner/repo`."""
    folder = (cwd / Path(text).expanduser()).resolve()
    if folder.is_dir():
        return MarketSource("directory", str(folder))
    if _GIT_URL.match(text) or text.endswith(".git"):
        return MarketSource("git", text)
    if _GITHUB_SHORT.match(text):
        return MarketSource("git", f"https://github.com/{text}.git")
    raise PluginError(f"{text}: neither a folder nor a git URL")


# req: PG4
def read_marketplace(folder: Path) -> Marketplace:
    """The market in `folder`; ManifestError (one line) when its marketplace.json is missing or
    broken. A bad plugin entry is skipped, never the whole market."""
    path = manifest_path(folder, MARKETPLACE_FILE)
    if path is None:
        raise ManifestError(
            f"{folder}: no .wave-plugin/marketplace.json or .claude-plugin/marketplace.json"
        )
    data = read_json_object(path)
    name = data.get("name")
    if not isinstance(name, str) or not PLUGIN_NAME.match(name):
        raise ManifestError(f"{path}: `name` must be a name of letters, digits, '.', '-', '_'")
    entries = data.get("plugins")
    if not isinstance(entries, list):
        raise ManifestError(f"{path}: `plugins` must be a list")
    owner = data.get("owner")
    owner_name = owner.get("name") if isinstance(owner, dict) else owner
    metadata = data.get("metadata")
    root = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
    base = root if isinstance(root, str) else ""
    plugins = [p for p in (_plugin_entry(e, base) for e in entries) if p is not None]
    return Marketplace(
        name,
        owner_name if isinstance(owner_name, str) else "",
        _text(data, "description") or _text(data.get("metadata") or {}, "description"),
        folder,
        tuple(plugins),
    )


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key) if isinstance(data, dict) else None
    return value.strip() if isinstance(value, str) else ""


# req: PH6
def _plugin_entry(entry: object, plugin_root: str) -> MarketPlugin | None:
    """One `plugins` entry; a bare relative source is under `metadata.pluginRoot`."""
    if not isinstance(entry, dict):
        return None
    name = entry.get("name")
    if not isinstance(name, str) or not PLUGIN_NAME.match(name):
        return None
    raw = entry.get("source", f"./{name}")
    if isinstance(raw, str) and plugin_root and not raw.startswith(("./", "../", "/")):
        raw = f"{plugin_root.rstrip('/')}/{raw}"
    source = MarketSource("directory", raw) if isinstance(raw, str) else source_of(raw)
    if source is None:
        return None
    manifest = entry if entry.get("strict") is False else None
    return MarketPlugin(
        name, _text(entry, "description"), _text(entry, "version"), source, manifest
    )


# -- the known markets ----------------------------------------------------------------------
async def add_market(paths: WavePaths, source: MarketSource) -> Marketplace:
    """Register a market; a git one is cloned first. Nothing is recorded when it fails."""
    if source.kind == "directory":
        market = await asyncio.to_thread(read_marketplace, Path(source.location))
        _refuse_taken(paths, market.name, source)
        await asyncio.to_thread(
            save_market, paths, KnownMarket(market.name, source, market.folder, now_iso())
        )
        return market
    return await _clone_market(paths, source, None)


async def _clone_market(paths: WavePaths, source: MarketSource, name: str | None) -> Marketplace:
    root = paths.marketplaces_dir
    staging = await asyncio.to_thread(_staging_dir, root)
    checkout = staging / "repo"
    try:
        await shallow_clone(source.location, checkout, f"marketplace {source.location}")
        market = await asyncio.to_thread(read_marketplace, checkout)
        if name is not None and market.name != name:
            raise PluginError(
                f"{source.location}: its marketplace is named {market.name!r}, not {name!r}"
            )
        _refuse_taken(paths, market.name, source)
        target = root / market.name
        await asyncio.to_thread(_replace_dir, checkout, target)
        await asyncio.to_thread(
            save_market, paths, KnownMarket(market.name, source, target, now_iso())
        )
        return await asyncio.to_thread(read_marketplace, target)
    except ManifestError as exc:
        raise PluginError(str(exc)) from exc
    finally:
        await asyncio.to_thread(shutil.rmtree, staging, True)


def _staging_dir(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".adding-", dir=root))


def _replace_dir(new: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    new.rename(target)


def _refuse_taken(paths: WavePaths, name: str, source: MarketSource) -> None:
    known = known_markets(paths).get(name)
    if known is not None and known.source != source:
        raise PluginError(
            f"a marketplace named {name!r} is already known (from {known.source.location}); "
            f"remove it first"
        )


async def update_market(paths: WavePaths, name: str) -> Marketplace:
    """Fetch a git market's latest listing (installed plugins are not upgraded)."""
    known = known_markets(paths).get(name)
    if known is None:
        raise PluginError(f"unknown marketplace {name!r}")
    if known.source.kind == "git":
        await fetch_latest(known.install_location, f"marketplace {name}")
    try:
        market = await asyncio.to_thread(read_marketplace, known.install_location)
    except ManifestError as exc:
        raise PluginError(str(exc)) from exc
    await asyncio.to_thread(
        save_market, paths, KnownMarket(name, known.source, known.install_location, now_iso())
    )
    return market


async def remove_market(paths: WavePaths, name: str) -> None:
    known = known_markets(paths).get(name)
    if known is None:
        raise PluginError(f"unknown marketplace {name!r}")
    await asyncio.to_thread(forget_market, paths, name)
    location = known.install_location
    if known.source.kind == "git" and location.is_relative_to(paths.marketplaces_dir):
        await asyncio.to_thread(shutil.rmtree, location, True)


async def market_named(
    paths: WavePaths, name: str, extra: Mapping[str, MarketSource]
) -> Marketplace:
    """A known market, or one of `extraKnownMarketplaces` fetched now on first use."""
    known = known_markets(paths).get(name)
    if known is not None:
        try:
            return await asyncio.to_thread(read_marketplace, known.install_location)
        except ManifestError as exc:
            raise PluginError(str(exc)) from exc
    source = extra.get(name)
    if source is None:
        raise PluginError(f"unknown marketplace {name!r} (wave plugin marketplace add SOURCE)")
    if source.kind == "directory":  # read where it is, as the settings name it
        try:
            return await asyncio.to_thread(read_marketplace, Path(source.location))
        except ManifestError as exc:
            raise PluginError(str(exc)) from exc
    return await _clone_market(paths, source, name)
