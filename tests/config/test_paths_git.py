"""WavePaths asks git once for the work-tree top and the common dir."""

from __future__ import annotations

import subprocess
from pathlib import Path

from wave_tui.config.paths import WavePaths


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_git_dirs_of_a_linked_worktree_name_the_main_repository(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    _git(main, "init", "-q")
    _git(
        main,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    linked = tmp_path / "linked"
    _git(main, "worktree", "add", "-q", str(linked))
    paths = WavePaths.for_workdir(linked / ".")
    assert paths.repo_top == linked.resolve()
    assert paths.main_repo_root == main.resolve()


def test_git_dirs_of_a_bare_repository_keep_the_common_dir(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    _git(tmp_path, "init", "-q", "--bare", str(bare))
    paths = WavePaths.for_workdir(bare)
    assert paths.repo_top is None
    assert paths.main_repo_root == bare.resolve()


def test_git_dirs_outside_a_repository_are_none(tmp_path: Path) -> None:
    paths = WavePaths.for_workdir(tmp_path)
    assert paths.repo_top is None
    assert paths.main_repo_root is None
