"""`~/.wave/history.jsonl` through the session facade: the user's own file (0600, an older
wider one narrowed), and never a text the memory secret guard refuses (a `# …` memory)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.model_server import ModelServer
from wave_tui.session.facade import create_session
from wave_tui.session.types import AgentOptions

SECRET_MEMORY = "# prod DB_PASSWORD=Xk9mPq2Lw7Rt4Vz8"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.req("FH14")
async def test_the_history_is_0600_and_keeps_no_refused_secret(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    session = create_session(AgentOptions(workdir=project, environ=model_server.env()))
    try:
        await session.input.remember("run the tests")
        await session.input.remember(SECRET_MEMORY)
        await session.input.remember("# use pytest -x for quick runs")
        history = await session.input.history()
    finally:
        await session.close()
    file = isolated_home / ".wave" / "history.jsonl"
    assert mode(file) == 0o600
    assert "Xk9mPq2Lw7Rt4Vz8" not in file.read_text()
    assert history == ["run the tests", "# use pytest -x for quick runs"]


@pytest.mark.req("FH14")
async def test_an_older_world_readable_history_is_narrowed_and_kept(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    file = isolated_home / ".wave" / "history.jsonl"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps({"project": str(project), "text": "older"}) + "\n")
    file.chmod(0o644)
    session = create_session(AgentOptions(workdir=project, environ=model_server.env()))
    try:
        await session.input.remember("newer")
        history = await session.input.history()
    finally:
        await session.close()
    assert mode(file) == 0o600
    assert history == ["older", "newer"]
