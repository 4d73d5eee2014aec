"""`wave memory consolidate` and the browser's `c` (MM5): the plan from the catalog as it is
now (with what each memory cites that is gone or changed), then applied as a revertible run, or
staged in the review inbox when `autoMemoryReview` is on."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping

from wave_tui.config.clock import Clock
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.settings import SettingsStore
from wave_tui.llm.errors import ModelError
from wave_tui.memory.catalog import MemoryEntry, build_catalog, with_missing_refs
from wave_tui.memory.catalog_marks import with_changed_refs
from wave_tui.memory.consolidation import (
    ConsolidationPlan,
    apply_plan,
    plan_consolidation,
    stage_plan,
)
from wave_tui.memory.inbox import review_enabled
from wave_tui.memory.runs import Run
from wave_tui.session.memory_check import CheckError, fast_client


@record
class Consolidated:
    plan: ConsolidationPlan
    run: Run | None = None  # written as this run
    pending: tuple[str, ...] = ()  # or staged as these inbox items (review mode)


def _entries(paths: WavePaths, clock: Clock) -> list[MemoryEntry]:
    entries = build_catalog(paths, clock)
    return with_changed_refs(with_missing_refs(entries, paths.project_root), paths)


# req: MM5
async def consolidation_plan(
    paths: WavePaths, clock: Clock, environ: Mapping[str, str] | None = None
) -> ConsolidationPlan:
    """What one pass would change (`--dry-run`); the fast model decides each merge."""
    entries = await asyncio.to_thread(_entries, paths, clock)
    found = fast_client(paths, environ)
    client, model = found if found is not None else (None, None)
    try:
        return await plan_consolidation(entries, paths, client, model)
    except ModelError as exc:
        raise CheckError(f"the consolidation request failed: {exc}") from exc
    finally:
        if client is not None:
            await client.aclose()


# req: MM5
async def consolidate(
    paths: WavePaths, clock: Clock, environ: Mapping[str, str] | None = None
) -> Consolidated:
    """Plan, then write it as one run (or stage it in the inbox in review mode)."""
    planned = await consolidation_plan(paths, clock, environ)
    return await apply_consolidation(planned, paths, environ)


async def apply_consolidation(
    planned: ConsolidationPlan, paths: WavePaths, environ: Mapping[str, str] | None = None
) -> Consolidated:
    """Write a plan the user saw as one run (or stage it in the inbox in review mode)."""
    env = dict(environ if environ is not None else os.environ)
    if review_enabled(SettingsStore(paths, env).current()):
        pending = await asyncio.to_thread(stage_plan, planned, paths)
        return Consolidated(planned, pending=tuple(pending))
    return Consolidated(planned, run=await asyncio.to_thread(apply_plan, planned, paths))
