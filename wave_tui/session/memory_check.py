"""`wave memory check`: contradictions among AGENTS.md lines, rules and memories, judged by the
fast model in one request (MM2). The session's part: the catalog, the endpoint from the
settings, and the saved result the browser and the extraction fork read."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from wave_tui.agent.model_gateway import default_client_factory
from wave_tui.config.clock import Clock
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore
from wave_tui.llm.errors import ModelError
from wave_tui.llm.replies import ClientConfig
from wave_tui.memory.catalog import build_catalog
from wave_tui.memory.catalog_marks import sides_of
from wave_tui.memory.conflicts import Conflict, candidate_pairs, judge, save_conflicts

if TYPE_CHECKING:
    from wave_tui.llm.client import ModelClient


def fast_client(
    paths: WavePaths, environ: Mapping[str, str] | None = None
) -> tuple[ModelClient, str] | None:
    """A client for the fast model (else the main one) at the configured endpoint; None when
    none is configured. The caller closes it."""
    settings = SettingsStore(paths, dict(environ if environ is not None else os.environ)).current()
    model = settings.fast_model or settings.model
    if not model or not settings.base_url:
        return None
    config = ClientConfig(
        base_url=settings.base_url, api_key=settings.api_key, headers=dict(settings.custom_headers)
    )
    return default_client_factory(config), model


class CheckError(Exception):
    """No model to ask, or the request failed: one line for the user."""


# req: MM2
async def check_memory(
    paths: WavePaths, clock: Clock, environ: Mapping[str, str] | None = None
) -> list[Conflict]:
    """Preselect candidate pairs (no model), then ask the fast model about all of them at once;
    the result is saved for the browser and the fork. Raises CheckError."""
    entries = await asyncio.to_thread(build_catalog, paths, clock)
    pairs = candidate_pairs(sides_of(entries))
    if not pairs:
        await asyncio.to_thread(save_conflicts, paths.conflicts_file, [])
        return []
    found = fast_client(paths, environ)
    if found is None:
        raise CheckError(
            f"{len(pairs)} candidate pair(s) need a model to judge them: set WAVE_MODEL (or "
            "fastModel) and WAVE_BASE_URL"
        )
    client, model = found
    try:
        conflicts = await judge(client, model, pairs)
    except ModelError as exc:
        raise CheckError(f"the check request failed: {exc}") from exc
    finally:
        await client.aclose()
    await asyncio.to_thread(save_conflicts, paths.conflicts_file, conflicts)
    return conflicts
