"""`wave context [--json]`: what the next request would cost, per source (MX2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from wave_tui.session.facade import create_session
from wave_tui.session.types import AgentOptions


# req: MX2
async def run_context(workdir: Path, *, as_json: bool, continue_last: bool = False) -> int:
    session = create_session(
        AgentOptions(workdir=workdir, headless=True, continue_last=continue_last)
    )
    try:
        session.restore()
        report = session.context_report()
    except (FileNotFoundError, ValueError) as exc:
        print(f"wave: {exc}", file=sys.stderr)
        return 2
    finally:
        await session.close()
    assert report is not None  # create_session always builds an agent
    if as_json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.render())
    if report.warning and as_json:
        for line in report.warning.splitlines():
            print(f"warning: {line}", file=sys.stderr)
    return 0
