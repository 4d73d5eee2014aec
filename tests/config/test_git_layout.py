"""The work tree's top and common dir read from the file system say exactly what git says, and
need no git process; the layouts only git can judge are left to it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from wave_tui.config.git_layout import GitLayout, read_git_layout
from wave_tui.config.paths import WavePaths


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def gits_answer(where: Path) -> tuple[Path | None, Path | None]:
    """(top, common dir) as `git rev-parse` prints them, made absolute."""
    done = subprocess.run(
        ["git", "rev-parse", "--git-common-dir", "--show-toplevel"],
        cwd=where,
        capture_output=True,
        text=True,
    )
    lines = done.stdout.splitlines()
    common = (where / lines[0]).resolve() if lines else None
    top = Path(lines[1]).resolve() if len(lines) > 1 else None
    return top, common


def ours(layout: GitLayout | None) -> tuple[Path | None, Path | None]:
    assert layout is not None, "the file system should have answered"
    top = Path(layout.top).resolve() if layout.top else None
    common = Path(layout.common).resolve() if layout.common else None
    return top, common


def plain(tmp: Path) -> Path:
    repo = tmp / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "src" / "deep").mkdir(parents=True)
    return repo / "src" / "deep"


def linked(tmp: Path) -> Path:
    main = tmp / "main"
    main.mkdir()
    git(main, "init", "-q")
    git(main, "commit", "-q", "--allow-empty", "-m", "x")
    git(main, "worktree", "add", "-q", str(tmp / "linked"))
    (tmp / "linked" / "pkg").mkdir()
    return tmp / "linked" / "pkg"


def submodule(tmp: Path) -> Path:
    lib = tmp / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    git(lib, "commit", "-q", "--allow-empty", "-m", "lib")
    app = tmp / "app"
    app.mkdir()
    git(app, "init", "-q")
    git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    return app / "vendor" / "lib"


def outside(tmp: Path) -> Path:
    folder = tmp / "no-repo"
    folder.mkdir()
    return folder


@pytest.mark.req("X3")
@pytest.mark.parametrize("layout", [plain, linked, outside])
def test_the_file_system_says_what_git_says(tmp_path: Path, layout: Callable[[Path], Path]) -> None:
    where = layout(tmp_path)
    if layout is outside:
        # tmp_path's parents hold no repository on this machine's temporary folder
        assert gits_answer(where) == (None, None)
    assert ours(read_git_layout(where)) == gits_answer(where)


@pytest.mark.req("X3")
def test_a_plain_repository_needs_no_git_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = plain(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-binaries-here"))
    paths = WavePaths.for_workdir(where)
    assert paths.repo_top == (tmp_path / "repo").resolve()
    assert paths.main_repo_root == (tmp_path / "repo").resolve()


def core_worktree(tmp: Path) -> Path:
    where = plain(tmp)
    git(tmp / "repo", "config", "core.worktree", str(tmp))
    return where


def bare(tmp: Path) -> Path:
    git(tmp, "init", "-q", "--bare", "bare.git")
    return tmp / "bare.git"


def dot_git_symlink(tmp: Path) -> Path:
    os.symlink(tmp / "elsewhere", tmp / ".git")
    return tmp


@pytest.mark.parametrize("make", [bare, core_worktree, dot_git_symlink])
def test_layouts_only_git_can_judge_are_left_to_it(
    tmp_path: Path, make: Callable[[Path], Path]
) -> None:
    assert read_git_layout(make(tmp_path)) is None


@pytest.mark.req("X3")
def test_a_submodule_is_left_to_git_and_still_named_rightly(tmp_path: Path) -> None:
    """git records a submodule's work tree in its config (`core.worktree`): git is asked."""
    where = submodule(tmp_path)
    assert read_git_layout(where) is None
    paths = WavePaths.for_workdir(where)
    assert (paths.repo_top, paths.main_repo_root) == (
        gits_answer(where)[0],
        (tmp_path / "app" / ".git" / "modules" / "vendor" / "lib").resolve(),
    )


def test_git_variables_leave_the_answer_to_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = plain(tmp_path)
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "other.git"))
    assert read_git_layout(where) is None
