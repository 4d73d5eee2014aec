"""The symlink swap between the permission check and the write: the write lands in the folder
that was checked or nowhere, and resolving a path under the race never crashes."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentService
from wave_tui.files.real_paths import real_path


def swap_on_ask(service: AgentService, folder: Path, outside: Path) -> list[str]:
    """Answer yes to the dialog, but swap `folder` for a link to `outside` while it is open."""
    asked: list[str] = []

    def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.PermissionRequested):
            asked.append(event.tool_name)
            folder.rename(folder.with_name(folder.name + ".moved"))
            folder.symlink_to(outside, target_is_directory=True)
            event.future.set_result("allow_once")

    service.subscribe(on_event)
    return asked


@pytest.mark.parametrize("depth", ["sub", "sub/deeper"], ids=["parent", "grandparent"])
@pytest.mark.parametrize("tool", ["Write", "Edit"])
async def test_a_folder_swapped_for_a_link_while_asking_gets_no_write_outside(
    make_service, model_server: ModelServer, project: Path, tmp_path: Path, tool: str, depth: str
) -> None:
    outside = tmp_path / "outside"
    (outside / "deeper").mkdir(parents=True)
    (outside / "deeper" / "notes.txt").write_text("theirs\n")
    (outside / "notes.txt").write_text("theirs\n")
    (project / depth).mkdir(parents=True)
    (project / depth / "notes.txt").write_text("mine\n")
    rel = f"{depth}/notes.txt"
    calls = [tool_call("Write", {"file_path": rel, "content": "planted\n"})]
    if tool == "Edit":
        calls = [
            tool_call("Read", {"file_path": rel}),
            tool_call("Edit", {"file_path": rel, "old_string": "mine", "new_string": "planted"}),
        ]
    if tool == "Write":
        calls.insert(0, tool_call("Read", {"file_path": rel}))
    model_server.enqueue(*calls, text("done"))
    service: AgentService = make_service()
    asked = swap_on_ask(service, project / "sub", outside)
    await service.run_turn("change it")
    assert asked == [tool]
    for planted in outside.rglob("*"):
        if planted.is_file():
            assert planted.read_text() == "theirs\n", planted
    result = model_server.requests[-1].body["messages"][-1]
    assert result["role"] == "tool" and "nothing was written" in result["content"]


def test_a_write_through_a_swapped_folder_fails_at_the_system_call(tmp_path: Path) -> None:
    from wave_tui.tools.base import write_text_and_stat

    inside, outside = tmp_path / "inside", tmp_path / "outside"
    (inside / "sub").mkdir(parents=True)
    outside.mkdir()
    checked = real_path(inside / "sub" / "f.txt")
    assert checked is not None
    (inside / "sub").rmdir()
    (inside / "sub").symlink_to(outside)
    with pytest.raises(OSError):
        write_text_and_stat(checked, "x")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("tail", ["x", "x/y", ""])
def test_resolving_a_path_while_a_link_on_it_flips_never_raises(tmp_path: Path, tail: str) -> None:
    (tmp_path / "a").mkdir()
    link = tmp_path / "l"
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            try:
                os.symlink("a", link)
                os.unlink(link)
            except OSError:
                pass

    flipper = threading.Thread(target=flip)
    flipper.start()
    errors: list[BaseException] = []
    try:
        for _ in range(40_000):
            try:
                real_path(os.path.join(link, tail))
            except Exception as exc:
                errors.append(exc)
    finally:
        stop.set()
        flipper.join()
    assert errors == []
