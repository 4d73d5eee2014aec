"""Fixtures for the TUI tests: one app factory, a frozen clock, seeded memories, stable snapshots.

Snapshots go to the top-level `snapshots/` folder: the shim below overrides the directory of
pytest-textual-snapshot's SVG extension (a private detail, hence the exact plugin pin).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import pytest_textual_snapshot
from textual.widgets import Input, TextArea

from tests.conftest import isolate_home
from wave_tui.agent import prompts
from wave_tui.agent import request as request_module
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.config.paths import WavePaths
from wave_tui.tui.app import WaveApp, make_app
from wave_tui.tui.widgets import start_panel

FIXED_NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
SIZE = (100, 32)
SNAPSHOT_ROOT = Path(__file__).resolve().parents[2] / "snapshots"
DAY = 86_400


class _TopLevelSnapshots(pytest_textual_snapshot.SVGImageExtension):
    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOT_ROOT / test_location.basename)


pytest_textual_snapshot.SVGImageExtension = _TopLevelSnapshots  # type: ignore[misc]


def fixed_clock() -> datetime:
    return FIXED_NOW


@pytest.fixture(autouse=True)
def _steady_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """No cursor blink, and no absolute tmp path in the system prompt (its token count shows
    in the status line) or on the start panel."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    original = prompts.environment_section

    def environment(workdir: Path, is_git_repo: bool, today: datetime) -> str:
        return original(Path("/project"), is_git_repo, today)

    monkeypatch.setattr(request_module, "environment_section", environment)
    # The start panel names the project folder: the same name in every run (a tmp path is not).
    monkeypatch.setattr(start_panel, "project_label", lambda root, home: "~/project")


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary folder whose path has the same length in every run, with or without xdist:
    paths reach the prompt, and the prompt's token count shows in the status line."""
    base = Path(tempfile.mkdtemp(prefix="wsnap", dir="/tmp")).resolve()
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(autouse=True)
def isolated_home(short_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME in the fixed-length folder (overrides the root conftest's, same isolation)."""
    home = short_tmp / "home"
    home.mkdir()
    return isolate_home(home, monkeypatch)


@pytest.fixture
def project(short_tmp: Path) -> Path:
    root = short_tmp / "project"
    root.mkdir()
    return root


@pytest.fixture
def frozen_time(time_machine: Any) -> None:
    time_machine.move_to(FIXED_NOW, tick=False)


@pytest.fixture
def paths(project: Path, isolated_home: Path) -> WavePaths:
    return WavePaths(project_root=project.resolve(), home=isolated_home.resolve())


def server_env(server: Any) -> dict[str, str]:
    return {"WAVE_BASE_URL": server.base_url, "WAVE_API_KEY": "k", "WAVE_MODEL": "test-model"}


BuildApp = Callable[..., WaveApp]


@pytest.fixture
def build_app(project: Path) -> Iterator[BuildApp]:
    """`build_app(environ)` -> a WaveApp over a fresh service in `project` (no env: no model)."""

    def build(environ: dict[str, str] | None = None) -> WaveApp:
        service = AgentService(
            AgentOptions(workdir=project, environ=environ or {}, clock=fixed_clock)
        )
        app = make_app(service.store, service, fixed_clock)
        app.animation_level = "none"
        return app

    yield build


def set_age(path: Path, days: float) -> None:
    """mtime `days` days (plus an hour) before FIXED_NOW."""
    stamp = FIXED_NOW.timestamp() - days * DAY - 3600
    os.utime(path, (stamp, stamp))


def write(path: Path, text: str, age_days: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    set_age(path, age_days)
    return path


PROJECT_AGENTS = (
    "# Project notes\n\n"
    "Keep this file short.\n\n"
    "- Run the tests with `pytest -q`\n"
    "- API handlers live in src/api\n"
    "- Use [b]uv[/b] for installs\n"
)


@pytest.fixture
def seeded_memory(paths: WavePaths) -> WavePaths:
    """Entries of every scope, aged 0, 1, 2 and 40 days."""
    write(paths.project_agents_md, PROJECT_AGENTS, 0)
    write(paths.user_agents_md, "- Prefer short answers\n- Explain the why\n", 1)
    memory = paths.memory_dir
    write(
        memory / "build_commands.md",
        "---\nname: Build commands\ndescription: how to build\ntype: project\n---\n"
        "Build with `make all`; the docs need `make docs`.\n",
        2,
    )
    write(
        memory / "redis_debugging.md",
        "---\nname: Redis flakiness\ndescription: why CI flaked\ntype: feedback\n---\n"
        "CI failures in March came from a shared Redis; tests now use a fake.\n",
        40,
    )
    write(
        memory / "MEMORY.md",
        "- [Build commands](build_commands.md) — make targets\n"
        "- [Redis flakiness](redis_debugging.md) — old CI issue\n",
        2,
    )
    rules = paths.project_root / ".wave" / "rules"
    write(rules / "style.md", "# Style\n\nUse type hints everywhere.\n", 40)
    write(
        rules / "api.md",
        "---\npaths: src/api/**/*.ts\n---\n# API rules\n\nValidate every request body.\n",
        2,
    )
    return paths


@pytest.fixture(autouse=True)
def _explain_screen_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """When Pilot gives up waiting for the screen, say which widgets did not answer and where
    every task of the loop stood: a bare WaitForScreenTimeout names nothing. (It named the
    cause once: the app's own task was gone — a reply's MarkdownStream had raised
    CancelledError into the app's message loop, see `AssistantMessage._flush`.)"""
    import asyncio
    import io

    from textual.pilot import Pilot, WaitForScreenTimeout

    original = Pilot._wait_for_screen

    def report(pilot: Pilot[Any]) -> str:
        out = io.StringIO()
        running = {task.get_name() for task in asyncio.all_tasks()}
        if not any(name.startswith("run_test") for name in running):
            print("the app's own task has ended (its message loop is gone)", file=out)
        for node in [pilot.app, *pilot.app.screen.walk_children(with_self=True)]:
            queued = node._message_queue.qsize()
            if queued:
                print(f"busy: {node!r} queued={queued} closed={node._closed}", file=out)
        for task in asyncio.all_tasks():
            print(f"--- {task.get_name()}", file=out)
            task.print_stack(limit=12, file=out)
        return out.getvalue()

    async def explained(self: Pilot[Any], timeout: float = 30.0) -> bool:
        try:
            return await original(self, timeout)
        except WaitForScreenTimeout as exc:
            raise WaitForScreenTimeout(f"{exc}\n{report(self)}") from None

    monkeypatch.setattr(Pilot, "_wait_for_screen", explained)
