"""Provenance per entry (MR5): `wave memory show ID [--json]` says who wrote a memory (user, main
agent, fork run, consolidation run, inbox), in which session and when, the state of each citation
as checked now, and its loads."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui.agent import events as ev
from wave_tui.features.memory.extraction import ExtractionHook

pytestmark = pytest.mark.req("MR5")


def topic(body: str) -> str:
    return f"---\nname: build\ndescription: how to build\ntype: project\n---\n{body}\n"


def show(project: Path, entry_id: str) -> dict[str, object]:
    proc = run_wave("memory", "show", entry_id, "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


async def test_a_fork_write_names_its_run_and_session_and_its_citations(
    service_for, model_server: ModelServer, project: Path
) -> None:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("PORT = 8080\n")
    service = service_for()
    mem = service.paths.memory_dir
    body = "The port is set at src/app.py:1; the old config was src/gone.py."
    model_server.enqueue(text("ok"), when=is_main)
    model_server.enqueue(
        tool_call("Write", {"file_path": str(mem / "build.md"), "content": topic(body)}),
        text("saved"),
        when=is_fork,
    )
    await service.run_turn("the port is 8080")
    await service.extensions.of_type(ExtractionHook).wait()
    session = service.session_id
    await service.destroy()

    (run,) = json.loads(run_wave("memory", "runs", "--json", cwd=project).stdout)
    shown = show(project, "auto:build.md")
    assert shown["written_by"] == "fork" and shown["run"] == run["id"]
    assert shown["session"] == session
    assert str(shown["written_at"]).startswith(time.strftime("%Y-%m-%d", time.gmtime()))
    assert shown["citations"] == [
        {"ref": "src/app.py:1", "state": "ok"},
        {"ref": "src/gone.py", "state": "missing"},
    ]
    assert shown["loads"] == 0 and shown["last_loaded"] is None

    (project / "src" / "app.py").write_text("PORT = 9090\n")
    changed = show(project, "auto:build.md")["citations"]
    assert changed[0] == {"ref": "src/app.py:1", "state": "changed"}

    plain = run_wave("memory", "show", "auto:build.md", cwd=project)
    assert plain.stdout == topic(body)  # the body alone on stdout, as before
    assert f"written by fork (run {run['id']}) in session {session}" in plain.stderr
    assert "src/app.py:1 changed, src/gone.py missing" in plain.stderr


async def test_the_main_agent_then_the_user_editor(
    service_for, model_server: ModelServer, project: Path
) -> None:
    service = service_for()
    target = service.paths.memory_dir / "build.md"
    model_server.enqueue(
        tool_call("Write", {"file_path": str(target), "content": topic("Use make.")}),
        text("saved"),
        when=is_main,
    )
    service.subscribe(
        lambda e: (
            e.future.set_result("allow_once") if isinstance(e, ev.PermissionRequested) else None
        )
    )
    await service.run_turn("remember: use make")
    session = service.session_id
    await service.destroy()
    shown = show(project, "auto:build.md")
    assert (shown["written_by"], shown["run"], shown["session"]) == ("main", None, session)

    later = time.time() + 60  # an editor saves the file after the agent's write
    target.write_text(topic("Use make -j8."))
    os.utime(target, (later, later))
    edited = show(project, "auto:build.md")
    assert (edited["written_by"], edited["run"], edited["session"]) == ("user", None, None)


def test_wave_memory_add_is_the_user_and_consolidation_names_its_run(
    model_server: ModelServer, project: Path
) -> None:
    assert run_wave("memory", "add", "--scope", "project", "Use pnpm", cwd=project).returncode == 0
    assert show(project, "project:AGENTS.md#1")["written_by"] == "user"

    from wave_tui.config.paths import WavePaths

    mem = WavePaths.for_workdir(project).memory_dir
    mem.mkdir(parents=True)
    old = time.time() - 5 * 86_400
    (mem / "a.md").write_text(topic("Build the project with make dist before each release."))
    os.utime(mem / "a.md", (old, old))
    (mem / "b.md").write_text(topic("Build the project with make dist before every release."))
    merged = topic("Build the project with make dist before each release.")
    model_server.enqueue(
        text(json.dumps({"merged": [{"group": 1, "same": True, "content": merged}]}))
    )
    done = run_wave("memory", "consolidate", cwd=project, server=model_server)
    assert done.returncode == 0, done.stderr
    (run,) = json.loads(run_wave("memory", "runs", "--json", cwd=project).stdout)
    shown = show(project, "auto:b.md")
    assert (shown["written_by"], shown["run"]) == ("consolidation", run["id"])


def test_an_accepted_inbox_item_is_the_inbox_with_the_proposing_run(project: Path) -> None:
    from wave_tui.config.paths import WavePaths
    from wave_tui.memory.inbox import Inbox

    paths = WavePaths.for_workdir(project)
    paths.memory_dir.mkdir(parents=True)
    item = Inbox(paths.project_dir, paths.memory_dir).propose(
        paths.memory_dir / "build.md", topic("Use make."), "20260101T000000-abcdefgh-001"
    )
    assert run_wave("memory", "accept", item.id, cwd=project).returncode == 0
    shown = show(project, "auto:build.md")
    assert (shown["written_by"], shown["run"]) == ("inbox", "20260101T000000-abcdefgh-001")
