"""A rewound conversation and the memory its undone turns taught (`--revert-memory`), and
cleanupPeriodDays expiring checkpoints with the transcripts they belong to."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.agent.test_extraction_review import TOPIC, extraction, script_fork_writes
from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths


@pytest.mark.req("RW6")
async def test_rewinding_the_conversation_reverts_the_extraction_runs_made_since(
    service_for, model_server: ModelServer, project: Path
) -> None:
    service = service_for()
    mem = service.paths.memory_dir
    (mem / "MEMORY.md").write_text("- [Old](old.md) — old\n")
    script_fork_writes(model_server, mem)
    await service.run_turn("we build with make dist")
    await extraction(service).wait()
    sid = service.session_id
    await service.destroy()
    assert (mem / "build.md").read_text() == TOPIC
    (run,) = json.loads(run_wave("memory", "runs", "--json", cwd=project).stdout)

    named = run_wave("sessions", "rewind", sid, "--to", "1", "--code", cwd=project)
    assert named.returncode == 0 and run["id"] not in named.stdout  # code only: not offered
    back = run_wave(
        "sessions", "rewind", sid, "--to", "1", "--conversation", "--revert-memory", cwd=project
    )
    assert back.returncode == 0, back.stderr
    assert f"reverted extraction run {run['id']}" in back.stdout
    assert not (mem / "build.md").exists()


@pytest.mark.req("RW7")
def test_cleanup_period_days_removes_expired_checkpoints_and_subagent_transcripts(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    env = {"WAVE_DISABLE_AUTO_MEMORY": "1"}
    paths = WavePaths.for_workdir(project)
    (project / "a.txt").write_text("a")
    from tests.model_server import tool_call

    model_server.enqueue(
        tool_call("Read", {"file_path": "a.txt"}),
        tool_call("Write", {"file_path": "a.txt", "content": "b"}),
        text("done"),
        text("fresh"),
    )
    first = run_wave(
        "-p", "old work", "--permission-mode", "acceptEdits", "--output-format", "json",
        cwd=project, server=model_server, env=env,
    )  # fmt: skip
    old = json.loads(first.stdout)["session_id"]
    subagent = paths.subagent_transcript(old, "agent-1")
    subagent.parent.mkdir(parents=True)
    subagent.write_text("{}\n")
    assert paths.checkpoint_dir(old).is_dir()
    aged = time.time() - 40 * 86_400
    for root, dirs, files in os.walk(paths.project_dir):
        for name in [*files, *dirs]:
            os.utime(os.path.join(root, name), (aged, aged))
    (isolated_home / ".wave").mkdir(exist_ok=True)
    (isolated_home / ".wave" / "settings.json").write_text('{"cleanupPeriodDays": 30}')
    proc = run_wave("-p", "new work", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr
    assert not paths.transcript(old).exists()
    assert not paths.checkpoint_dir(old).exists()
    assert not subagent.exists()
