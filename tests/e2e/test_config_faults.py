"""Black-box `wave -p` / `wave memory list` against broken configuration (X9, X10)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths

EXIT_CONFIG = 2


def _wave_home_is_a_file(home: Path, paths: WavePaths) -> str:
    (home / ".wave").write_text("not a folder")
    return "~/.wave is a file"


def _locks_is_a_file(home: Path, paths: WavePaths) -> str:
    (home / ".wave").mkdir()
    (home / ".wave" / "locks").write_text("not a folder")
    return "~/.wave/locks is a file"


def _memory_folder_is_a_file(home: Path, paths: WavePaths) -> str:
    paths.project_dir.mkdir(parents=True)
    paths.memory_dir.write_text("not a folder")
    return f"~/.wave/projects/{paths.project_id}/memory is a file"


def _agents_md_is_a_folder(home: Path, paths: WavePaths) -> str:
    paths.project_agents_md.mkdir()
    return "AGENTS.md is a folder"


def _memory_index_is_a_folder(home: Path, paths: WavePaths) -> str:
    paths.memory_index.mkdir(parents=True)
    return f"~/.wave/projects/{paths.project_id}/memory/MEMORY.md is a folder"


def _user_agents_md_is_a_folder(home: Path, paths: WavePaths) -> str:
    paths.user_agents_md.mkdir(parents=True)
    return "~/.wave/AGENTS.md is a folder"


# What a run cannot do without: `wave -p` stops on these (X10).
RUN_BREAKAGES: list[Callable[[Path, WavePaths], str]] = [_wave_home_is_a_file, _locks_is_a_file]
# Memory sources: `wave memory …` stops on these (X10); a run warns and goes on (M5).
MEMORY_BREAKAGES: list[Callable[[Path, WavePaths], str]] = [
    _memory_folder_is_a_file,
    _memory_index_is_a_folder,
    _agents_md_is_a_folder,
    _user_agents_md_is_a_folder,
]
BREAKAGES = RUN_BREAKAGES + MEMORY_BREAKAGES


def _assert_one_clear_line(proc_stderr: str, expected: str) -> None:
    lines = proc_stderr.strip().splitlines()
    assert len(lines) == 1, proc_stderr
    assert lines[0].startswith(f"wave: {expected}"), lines[0]
    assert "Traceback" not in proc_stderr


@pytest.mark.req("X10")
@pytest.mark.parametrize("breakage", RUN_BREAKAGES, ids=lambda f: f.__name__.strip("_"))
def test_x10_wave_p_names_the_path_and_exits_2(
    breakage: Callable[[Path, WavePaths], str],
    isolated_home: Path,
    project: Path,
    model_server: ModelServer,
) -> None:
    expected = breakage(isolated_home, WavePaths.for_workdir(project, home=isolated_home))
    model_server.enqueue(text("never sent"))

    proc = run_wave("-p", "hi", cwd=project, server=model_server)

    assert proc.returncode == EXIT_CONFIG
    _assert_one_clear_line(proc.stderr, expected)
    assert proc.stdout == ""
    assert model_server.requests == []


@pytest.mark.req("M5")
@pytest.mark.parametrize(
    ("breakage", "folder_broken"),
    [
        (_memory_folder_is_a_file, True),
        (_memory_index_is_a_folder, True),
        (_agents_md_is_a_folder, False),
        (_user_agents_md_is_a_folder, False),
    ],
    ids=lambda f: f.__name__.strip("_") if callable(f) else "",
)
def test_m5_an_unreadable_memory_source_is_warned_once_and_the_turn_goes_on(
    breakage: Callable[[Path, WavePaths], str],
    folder_broken: bool,
    isolated_home: Path,
    project: Path,
    model_server: ModelServer,
) -> None:
    """Auto memory stays on (the default), so a broken memory folder must switch it off for
    the run: no extraction request follows the turn, no memory section in the prompt."""
    paths = WavePaths.for_workdir(project, home=isolated_home)
    named = breakage(isolated_home, paths).split(" is a ")[0].removeprefix("~/.wave/")
    model_server.enqueue(text("answered anyway"))

    proc = run_wave("-p", "hi", cwd=project, server=model_server)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "answered anyway\n"
    (warning,) = proc.stderr.splitlines()
    assert warning.startswith("wave: warning: ") and named in warning, warning
    assert "Traceback" not in proc.stderr
    chats = [r for r in model_server.requests if r.path.endswith("/chat/completions")]
    system = json.dumps(chats[0].body["messages"][0])
    if folder_broken:
        assert warning.endswith("; auto memory is off for this run")
        assert len(chats) == 1  # no extraction fork
        assert "MEMORY.md" not in system
    else:
        assert warning.endswith(" is a folder, not a file; skipped")
        assert "MEMORY.md" in system  # auto memory itself is untouched


@pytest.mark.req("X10")
@pytest.mark.parametrize("breakage", BREAKAGES, ids=lambda f: f.__name__.strip("_"))
def test_x10_wave_memory_list_names_the_path_and_exits_2(
    breakage: Callable[[Path, WavePaths], str], isolated_home: Path, project: Path
) -> None:
    expected = breakage(isolated_home, WavePaths.for_workdir(project, home=isolated_home))

    proc = run_wave("memory", "list", cwd=project)

    assert proc.returncode == EXIT_CONFIG
    _assert_one_clear_line(proc.stderr, expected)


@pytest.mark.req("X9")
def test_x9_deeply_nested_user_settings_is_named_and_the_environment_still_works(
    isolated_home: Path, project: Path, model_server: ModelServer
) -> None:
    settings = isolated_home / ".wave" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("[" * 100_000)
    model_server.enqueue(text("still answering"))

    proc = run_wave(
        "-p", "hi", cwd=project, server=model_server, env={"WAVE_DISABLE_AUTO_MEMORY": "1"}
    )

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "still answering\n"
    assert proc.stderr.strip().splitlines() == [
        "wave: warning: ~/.wave/settings.json: nested too deeply to read; file ignored"
    ]
    assert len(model_server.requests) == 1
