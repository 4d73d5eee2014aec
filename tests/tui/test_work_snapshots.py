"""Snapshots of the work UI and the memory browser's review views: the plan
dialog, the question dialog, the task panel with a subagent block, the extraction runs with a
diff, the review inbox and the /context view."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import FIXED_NOW, SIZE, BuildApp, fixed_clock, server_env
from tests.tui.helpers import open_memory
from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.config.paths import WavePaths
from wave_tui.memory.inbox import Inbox
from wave_tui.session.types import Question, QuestionOption, Task
from wave_tui.tui.app import make_app

# An endpoint that is never called: the chat shows its normal face, not the first-run panel.
CONFIGURED = {"WAVE_BASE_URL": "http://127.0.0.1:9/v1", "WAVE_API_KEY": "k", "WAVE_MODEL": "m"}


@pytest.mark.req("PL2")
def test_pl2_plan_dialog(snap_compare: Any, build_app: BuildApp, paths: WavePaths) -> None:
    """PL2: the plan is shown with approve-with-auto-accept / approve / keep planning."""
    app = build_app()

    async def run_before(pilot: Pilot[None]) -> None:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        plan = "1. Add the failing test\n2. Fix parse_config\n3. Run the suite"
        app.session._emit(ev.PlanApprovalRequested(plan, paths.home / "plan.md", future))  # type: ignore[arg-type]
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.req("AQ1")
def test_aq1_question_dialog(snap_compare: Any, build_app: BuildApp) -> None:
    """AQ1: options as a single choice, plus an "other" field."""
    app = build_app()
    questions = (
        Question(
            "Which database should the tests use?",
            "DB",
            (QuestionOption("sqlite", "in memory, fast"), QuestionOption("postgres", "as prod")),
        ),
    )

    async def run_before(pilot: Pilot[None]) -> None:
        app.session._emit(ev.QuestionAsked(questions, asyncio.get_running_loop().create_future()))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.req("AG5", "TK3")
def test_tk3_task_panel_and_ag5_subagent_block(snap_compare: Any, build_app: BuildApp) -> None:
    """TK3: the live task panel (active form while in progress); AG5: a subagent's block."""
    app = build_app(CONFIGURED)
    tasks = (
        Task("1", "Write tests", status="completed"),
        Task("2", "Fix bug", active_form="Fixing the bug", status="in_progress"),
        Task("3", "Ship"),
    )

    async def run_before(pilot: Pilot[None]) -> None:
        app.session._emit(ev.TasksChanged(tasks))
        app.session._emit(ev.SubagentProgress("a1", "Find config", "started", "Explore"))
        app.session._emit(ev.SubagentProgress("a1", "Find config", "tool", "Grep config"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def _record_run(paths: WavePaths, target: Path) -> None:
    audit = paths.project_dir / "extractions"
    audit.mkdir(parents=True, exist_ok=True)
    record = {
        "kind": "extraction",
        "started_at": FIXED_NOW.timestamp() - 3600,
        "session_id": "s1",
        "turn": 3,
        "changes": [{"path": str(target), "before": "- old\n", "after": "- old\n- new\n"}],
    }
    (audit / "run1.json").write_text(json.dumps(record))


@pytest.mark.req("MX7")
def test_mx7_extraction_runs_with_a_diff(
    snap_compare: Any, build_app: BuildApp, paths: WavePaths
) -> None:
    """MX7: when, which turn, the files written and the diff of each; `r` reverts."""
    paths.memory_dir.mkdir(parents=True)
    target = paths.memory_dir / "build.md"
    target.write_text("- old\n- new\n")
    _record_run(paths, target)
    app = build_app()

    async def run_before(pilot: Pilot[None]) -> None:
        await open_memory(pilot)
        app.screen.query_one("#memory-table").focus()
        await pilot.press("u")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.req("MX8")
def test_mx8_review_inbox(
    snap_compare: Any, build_app: BuildApp, paths: WavePaths, frozen_time: None
) -> None:
    """MX8: fork writes wait in the inbox, accepted or rejected per file."""
    paths.memory_dir.mkdir(parents=True)
    inbox = Inbox(paths.project_dir, paths.memory_dir)
    inbox.propose(
        paths.memory_dir / "ci.md", "---\nname: ci\ntype: project\n---\nCI runs on 2 cores.\n"
    )
    app = build_app()

    async def run_before(pilot: Pilot[None]) -> None:
        await open_memory(pilot)
        app.screen.query_one("#memory-table").focus()
        await pilot.press("i")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.req("MX2")
def test_mx2_context_view(snap_compare: Any, build_app: BuildApp, paths: WavePaths) -> None:
    """MX2: what the next request costs per source, % of the window."""
    paths.project_agents_md.write_text("# Project\n- Run the tests with `pytest -q`\n")
    app = build_app()

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        app.show_context()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.req("UX3")
def test_ux3_chat_with_the_restored_conversation(
    snap_compare: Any, model_server: ModelServer, project: Path
) -> None:
    """UX3: `--continue` shows the restored conversation (user messages, answers, tool blocks
    collapsed), scrolled to the end."""
    (project / "notes.txt").write_text("the secret is 42\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "notes.txt"}), text("The secret is **42**."), when=is_main
    )
    model_server.enqueue(text("Nothing new to save."), when=is_fork)
    environ = server_env(model_server)

    async def first_session() -> None:
        service = AgentService(AgentOptions(workdir=project, environ=environ, clock=fixed_clock))
        await service.run_turn("what is the secret in notes.txt?")
        await service.destroy()

    asyncio.run(first_session())
    resumed = AgentService(
        AgentOptions(workdir=project, environ=environ, clock=fixed_clock, continue_last=True)
    )
    app = make_app(resumed.store, resumed, fixed_clock)
    app.animation_level = "none"

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
