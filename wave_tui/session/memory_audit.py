"""`wave memory audit [--session ID] [--json]` (MR3): the rule check over a past session's tool
calls, with the rules and AGENTS.md lines in force now; what it finds is kept for the fork."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from wave_tui.agent.session_files import full_thread, list_sessions
from wave_tui.config.paths import WavePaths
from wave_tui.llm.errors import ModelError
from wave_tui.memory.catalog import build_catalog
from wave_tui.memory.rule_check import (
    Violation,
    calls_of,
    check_calls,
    rules_in_force,
    save_violations,
)
from wave_tui.session.memory_check import CheckError, fast_client


def _session(paths: WavePaths, wanted: str | None) -> str:
    sessions = list_sessions(paths)
    if wanted is None:
        if not sessions:
            raise CheckError("no session of this project to audit")
        return max(sessions, key=lambda s: s.last_active).id
    matches = [s.id for s in sessions if s.id == wanted or s.id.startswith(wanted)]
    if len(matches) != 1:
        found = "no session" if not matches else f"{len(matches)} sessions"
        raise CheckError(f"{found} of this project match {wanted!r}")
    return matches[0]


# req: MR3
async def audit_session(
    paths: WavePaths, session_id: str | None, environ: Mapping[str, str] | None = None
) -> tuple[str, list[Violation]]:
    """(the session audited, the violations found). Raises CheckError."""
    sid = await asyncio.to_thread(_session, paths, session_id)
    calls = calls_of(await asyncio.to_thread(full_thread, paths, sid))
    rules = rules_in_force(await asyncio.to_thread(build_catalog, paths))
    found = fast_client(paths, environ)
    if found is None:
        raise CheckError("no model configured to run the check (WAVE_BASE_URL, WAVE_MODEL)")
    client, model = found
    try:
        violations = await check_calls(client, model, rules, calls)
    except ModelError as exc:
        raise CheckError(f"the rule check request failed: {exc}") from exc
    finally:
        await client.aclose()
    await asyncio.to_thread(save_violations, paths.project_dir, sid, violations)
    return sid, violations
