"""`autoMemoryWrites` (MR1): `off` keeps recall but runs no extraction and makes the agent's memory
writes ask; `review` stages the fork's writes; `wave memory mode` shows and sets the mode; the
status line and `/memory` say which mode is in force."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui.agent import events as ev
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.session.facade import AgentSession
from wave_tui.tui.format import auto_memory_label

TOPIC = "---\nname: build\ndescription: how to build\ntype: project\n---\nBuild with make dist.\n"
pytestmark = pytest.mark.req("MR1")


def user_settings(settings: dict[str, object]) -> None:
    folder = Path.home() / ".wave"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings))


def script_fork_write(model_server: ModelServer, mem: Path) -> None:
    model_server.enqueue(
        tool_call("Write", {"file_path": str(mem / "build.md"), "content": TOPIC}),
        text("saved"),
        when=is_fork,
    )


async def test_off_keeps_recall_runs_no_fork_and_memory_writes_ask(
    service_for, model_server: ModelServer
) -> None:
    user_settings({"autoMemoryWrites": "off"})
    first = service_for()
    mem = first.paths.memory_dir
    await first.destroy()
    (mem / "MEMORY.md").write_text("- [Ports](ports.md) — the dev server listens on 8080\n")
    service = service_for()  # the index loads once per session: this one starts with it
    target = mem / "note.md"
    model_server.enqueue(
        tool_call("Write", {"file_path": str(target), "content": "a note\n"}),
        text("done"),
        when=is_main,
    )
    script_fork_write(model_server, mem)
    asked: list[str] = []

    def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.PermissionRequested):
            asked.append(str(event.args["file_path"]))
            event.future.set_result("deny")

    service.subscribe(on_event)
    await service.run_turn("remember a note")
    await service.extensions.of_type(ExtractionHook).wait()
    await service.destroy()

    assert asked == [str(target)]  # outside the safe zones: it asks like any write
    assert not target.exists()
    assert not any(is_fork(r.body) for r in model_server.requests)  # no extraction
    assert not (mem / "build.md").exists()
    system = model_server.requests[0].body["messages"][0]["content"]
    assert "the dev server listens on 8080" in system  # recall stays


async def test_auto_saves_without_asking_and_review_stages(
    service_for, model_server: ModelServer, project: Path
) -> None:
    user_settings({"autoMemoryWrites": "review"})
    service = service_for()
    mem = service.paths.memory_dir
    model_server.enqueue(text("ok"), when=is_main)
    script_fork_write(model_server, mem)
    await service.run_turn("we build with make dist")
    await service.extensions.of_type(ExtractionHook).wait()
    await service.destroy()
    assert not (mem / "build.md").exists()
    inbox = run_wave("memory", "inbox", "--json", cwd=project)
    assert [i["relative"] for i in json.loads(inbox.stdout)] == ["build.md"]


async def test_explicit_mode_wins_over_the_old_review_switch(
    service_for, model_server: ModelServer
) -> None:
    user_settings({"autoMemoryReview": True, "autoMemoryWrites": "auto"})
    service = service_for()
    mem = service.paths.memory_dir
    model_server.enqueue(text("ok"), when=is_main)
    script_fork_write(model_server, mem)
    await service.run_turn("we build with make dist")
    await service.extensions.of_type(ExtractionHook).wait()
    await service.destroy()
    assert (mem / "build.md").read_text() == TOPIC


def test_wave_memory_mode_shows_and_sets_the_user_setting(project: Path) -> None:
    shown = run_wave("memory", "mode", cwd=project)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("memory writes: auto")
    user_settings({"autoMemoryReview": True, "model": "kept"})
    assert run_wave("memory", "mode", cwd=project).stdout.startswith("memory writes: review")

    set_off = run_wave("memory", "mode", "off", cwd=project)
    assert set_off.returncode == 0, set_off.stderr
    assert set_off.stdout.startswith("memory writes: off — recall only")
    saved = json.loads((Path.home() / ".wave" / "settings.json").read_text())
    assert saved == {"autoMemoryReview": True, "model": "kept", "autoMemoryWrites": "off"}

    bad = run_wave("memory", "mode", "sometimes", cwd=project)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


async def test_status_and_slash_memory_name_the_mode(
    service_for, model_server: ModelServer, project: Path
) -> None:
    user_settings({"autoMemoryWrites": "off"})
    session = AgentSession(service_for())
    status = session.status()
    assert status.memory_writes == "off"
    label = auto_memory_label(
        status.auto_memory,
        status.auto_memory_frequency,
        status.turns_until_extraction,
        status.memory_writes,
    )
    assert label == "auto memory recall only"
    assert auto_memory_label(True, 1, 1, "review") == "auto memory review · every turn · next in 1"
    shown = run_wave("-p", "/memory", cwd=project, server=model_server)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0].startswith("memory writes: off — recall only")
