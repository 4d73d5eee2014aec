"""X10: paths wave owns with the wrong type are named in one line (unit level; black-box in
tests/e2e/test_config_faults.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.config.fileio import file_lock, locked_update
from wave_tui.config.paths import OwnedPathError, WavePaths, owned_path_problem


@pytest.mark.req("X10")
def test_x10_a_healthy_home_has_no_problem_and_runs_no_git(paths: WavePaths) -> None:
    paths.memory_dir.mkdir(parents=True)
    fresh = WavePaths(project_root=paths.project_root, home=paths.home)

    assert owned_path_problem(fresh) is None
    assert "project_id" not in fresh.__dict__  # the git subprocess is not paid at start-up


@pytest.mark.req("X10")
def test_x10_memory_index_as_a_folder(paths: WavePaths) -> None:
    paths.memory_index.mkdir(parents=True)

    assert owned_path_problem(paths) == (
        f"~/.wave/projects/{paths.project_id}/memory/MEMORY.md is a folder, but wave keeps "
        "memory in a file there; rename or remove the folder"
    )


@pytest.mark.req("X10")
def test_x10_another_projects_broken_folder_is_not_ours(paths: WavePaths) -> None:
    paths.projects_dir.mkdir(parents=True)
    (paths.projects_dir / "some-other-project").write_text("x")

    assert owned_path_problem(paths) is None


@pytest.mark.req("X10")
def test_x10_file_writes_name_the_bad_path(paths: WavePaths, isolated_home: Path) -> None:
    (isolated_home / ".wave").mkdir()
    (isolated_home / ".wave" / "locks").write_text("x")

    with (
        pytest.raises(OwnedPathError, match="locks must be a folder"),
        file_lock(paths.project_agents_md),
    ):
        pass


@pytest.mark.req("X10")
def test_x10_locked_update_of_a_folder_says_so(paths: WavePaths) -> None:
    paths.project_agents_md.mkdir()

    with pytest.raises(OwnedPathError, match=r"AGENTS\.md is a folder, not a file"):
        locked_update(paths.project_agents_md, lambda current: "x")
