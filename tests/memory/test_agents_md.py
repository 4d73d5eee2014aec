"""Project and user AGENTS.md locations and safe reading (M2, M5, M6)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.memory.agents_md import project_memory_files, read_memory_text, user_memory_file


@pytest.mark.req("M6")
def test_m6_repo_top_down_to_project_root_far_to_near(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    pkg = repo / "packages" / "web"
    pkg.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("top\n", encoding="utf-8")
    (repo / "packages" / "CLAUDE.md").write_text("packages\n", encoding="utf-8")
    (pkg / "AGENTS.md").write_text("web\n", encoding="utf-8")
    (pkg / "CLAUDE.md").write_text("ignored\n", encoding="utf-8")
    files = project_memory_files(WavePaths.for_workdir(pkg))
    assert files == [
        repo.resolve() / "AGENTS.md",
        repo.resolve() / "packages" / "CLAUDE.md",
        pkg.resolve() / "AGENTS.md",
    ]


@pytest.mark.req("M6")
def test_m6_not_a_repo_only_project_root(project: Path) -> None:
    paths = WavePaths.for_workdir(project)
    assert project_memory_files(paths) == []
    (project / "CLAUDE.md").write_text("c\n", encoding="utf-8")
    assert project_memory_files(paths) == [paths.project_root / "CLAUDE.md"]


@pytest.mark.req("M2")
def test_m2_user_memory_file_is_in_home(project: Path, isolated_home: Path) -> None:
    paths = WavePaths.for_workdir(project)
    assert user_memory_file(paths) == isolated_home.resolve() / ".wave" / "AGENTS.md"


@pytest.mark.req("M5")
def test_m5_missing_file_reads_as_none(tmp_path: Path) -> None:
    assert read_memory_text(tmp_path / "nope" / "AGENTS.md") is None
    assert read_memory_text(tmp_path) is None  # a folder, not a file: still no error


@pytest.mark.req("M5")
def test_m5_non_utf8_replaced_with_warning(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_bytes(b"caf\xe9\n")
    warnings: list[str] = []
    assert read_memory_text(path, warnings.append) == "caf\ufffd\n"
    assert len(warnings) == 1 and "UTF-8" in warnings[0]
