"""Worktree-staged memory (MR2): with `worktree.memory: "staged"` the fork's writes made inside a
worktree wait in the inbox tagged `worktree:NAME`; ExitWorktree asks to accept, review or drop
them; nothing staged is lost when the worktree is removed. `shared` (the default) writes as
always."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.git_repos import committed_repo
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.session.factory import create_service
from wave_tui.tools.ask_user import QuestionAnswer

pytestmark = pytest.mark.req("MR2")
TOPIC = "---\nname: build\ndescription: how to build\ntype: project\n---\nBuild with make.\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return committed_repo(tmp_path / "repo", {"a.txt": "hello\n"})


def user_settings(data: dict[str, object]) -> None:
    path = Path.home() / ".wave" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def start(repo: Path, server: ModelServer, answer: str | None, headless: bool) -> AgentService:
    env = {"WAVE_BASE_URL": server.base_url, "WAVE_MODEL": "test-model"}
    options = AgentOptions(
        workdir=repo, environ=env, headless=headless, permission_mode="bypassPermissions"
    )
    service = create_service(options)

    def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.QuestionAsked):
            asked.append(event.questions[0].question)
            chosen = (answer,) if answer else ()
            event.future.set_result((QuestionAnswer(event.questions[0].question, chosen),))

    asked: list[str] = []
    service.subscribe(on_event)
    service.start()
    service.asked = asked  # type: ignore[attr-defined]
    return service


async def stage_in_worktree(service: AgentService, server: ModelServer) -> Path:
    mem = service.paths.memory_dir
    server.enqueue(tool_call("EnterWorktree", {"name": "feat"}), text("in"), when=is_main)
    server.enqueue(
        tool_call("Write", {"file_path": str(mem / "build.md"), "content": TOPIC}),
        text("saved"),
        when=is_fork,
    )
    await service.run_turn("work in a worktree; we build with make")
    await service.extensions.of_type(ExtractionHook).wait()
    return mem


def exit_result(server: ModelServer) -> str:
    last = server.requests[-1].body["messages"]
    return next(m["content"] for m in reversed(last) if m.get("role") == "tool")


async def test_staged_writes_wait_tagged_and_exit_accepts_them(
    repo: Path, model_server: ModelServer
) -> None:
    user_settings({"worktree": {"memory": "staged"}})
    service = start(repo, model_server, "Accept", headless=False)
    try:
        mem = await stage_in_worktree(service, model_server)
        assert not (mem / "build.md").exists()  # not in the shared memory yet
        items = json.loads(run_wave("memory", "inbox", "--json", cwd=repo).stdout)
        assert [(i["relative"], i["tag"]) for i in items] == [("build.md", "worktree:feat")]
        assert "[worktree:feat]" in run_wave("memory", "inbox", cwd=repo).stdout

        model_server.enqueue(tool_call("ExitWorktree", {"action": "remove"}), text("out"))
        await service.run_turn("done here")
        await service.extensions.of_type(ExtractionHook).wait()
    finally:
        await service.destroy()
    assert service.asked == [  # type: ignore[attr-defined]
        "1 memory write(s) were staged in worktree feat. Accept them into the shared memory, "
        "review them later, or drop them?"
    ]
    assert (mem / "build.md").read_text() == TOPIC
    assert "Accepted 1 staged memory write(s): build.md." in exit_result(model_server)
    assert json.loads(run_wave("memory", "inbox", "--json", cwd=repo).stdout) == []


async def test_drop_discards_them(repo: Path, model_server: ModelServer) -> None:
    user_settings({"worktree": {"memory": "staged"}})
    service = start(repo, model_server, "Drop", headless=False)
    try:
        mem = await stage_in_worktree(service, model_server)
        model_server.enqueue(tool_call("ExitWorktree", {"action": "keep"}), text("out"))
        await service.run_turn("done here")
    finally:
        await service.destroy()
    assert not (mem / "build.md").exists()
    assert json.loads(run_wave("memory", "inbox", "--json", cwd=repo).stdout) == []


async def test_without_anyone_to_ask_nothing_staged_is_lost_when_the_worktree_goes(
    repo: Path, model_server: ModelServer
) -> None:
    user_settings({"worktree": {"memory": "staged"}})
    service = start(repo, model_server, None, headless=True)
    try:
        mem = await stage_in_worktree(service, model_server)
        model_server.enqueue(tool_call("ExitWorktree", {"action": "remove"}), text("out"))
        await service.run_turn("done here")
    finally:
        await service.destroy()
    assert not (repo / ".wave" / "worktrees" / "feat").exists()  # removed
    assert "wait in the inbox" in exit_result(model_server)
    (item,) = json.loads(run_wave("memory", "inbox", "--json", cwd=repo).stdout)
    assert item["tag"] == "worktree:feat"
    assert run_wave("memory", "accept", item["id"], cwd=repo).returncode == 0
    assert (mem / "build.md").read_text() == TOPIC


async def test_shared_is_the_default_and_writes_at_once(
    repo: Path, model_server: ModelServer
) -> None:
    service = start(repo, model_server, None, headless=True)
    try:
        mem = await stage_in_worktree(service, model_server)
    finally:
        await service.destroy()
    assert (mem / "build.md").read_text() == TOPIC
    assert json.loads(run_wave("memory", "inbox", "--json", cwd=repo).stdout) == []
