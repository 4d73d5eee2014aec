"""Black-box `wave -p` / `wave memory list` against broken configuration (X9, X10)."""

from __future__ import annotations

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


BREAKAGES: list[Callable[[Path, WavePaths], str]] = [
    _wave_home_is_a_file,
    _locks_is_a_file,
    _memory_folder_is_a_file,
    _agents_md_is_a_folder,
]


def _assert_one_clear_line(proc_stderr: str, expected: str) -> None:
    lines = proc_stderr.strip().splitlines()
    assert len(lines) == 1, proc_stderr
    assert lines[0].startswith(f"wave: {expected}"), lines[0]
    assert "Traceback" not in proc_stderr


@pytest.mark.parametrize("breakage", BREAKAGES, ids=lambda f: f.__name__.strip("_"))
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


@pytest.mark.parametrize("breakage", BREAKAGES, ids=lambda f: f.__name__.strip("_"))
def test_x10_wave_memory_list_names_the_path_and_exits_2(
    breakage: Callable[[Path, WavePaths], str], isolated_home: Path, project: Path
) -> None:
    expected = breakage(isolated_home, WavePaths.for_workdir(project, home=isolated_home))

    proc = run_wave("memory", "list", cwd=project)

    assert proc.returncode == EXIT_CONFIG
    _assert_one_clear_line(proc.stderr, expected)


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
