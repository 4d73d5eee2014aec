"""004 §11's functions beside the agent: the git queries on real repositories and worktrees,
`file_search` on real files, the prompt history the app reads, the WorktreeRemove hook."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.model_server import ModelServer
from wave_tui import (
    Agent,
    PromptHistoryManager,
    file_search,
    get_default_remote_branch,
    get_git_common_dir,
    get_git_main_repo_root,
    get_git_repo_root,
    has_new_commits,
    has_uncommitted_changes,
    is_git_repository,
    resolve_git_dir,
)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with one commit, cloned from an "origin" whose default branch is main."""
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    (origin / "README").write_text("x\n")
    git(origin, "add", "README")
    git(origin, "commit", "-qm", "init")
    git(tmp_path, "clone", "-q", str(origin), "repo")
    return (tmp_path / "repo").resolve()


@pytest.mark.req("SX10")
async def test_the_git_functions_answer_for_checkouts_and_worktrees(
    repo: Path, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert await is_git_repository(repo) and not await is_git_repository(plain)
    (repo / "pkg").mkdir()
    assert await get_git_repo_root(repo / "pkg") == repo
    assert await get_git_repo_root(plain) is None
    assert await resolve_git_dir(repo) == repo / ".git"
    assert await get_git_common_dir(repo) == repo / ".git"
    assert await get_default_remote_branch(repo) == "main"
    assert await get_default_remote_branch(plain) is None

    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked), "-b", "feature")
    linked = linked.resolve()
    assert await get_git_repo_root(linked) == linked
    assert await get_git_main_repo_root(linked) == repo
    assert await get_git_common_dir(linked) == repo / ".git"
    assert await resolve_git_dir(linked) == repo / ".git" / "worktrees" / "linked"

    assert not await has_uncommitted_changes(linked)
    assert not await has_new_commits(linked)
    (linked / "new.txt").write_text("n\n")
    assert await has_uncommitted_changes(linked)
    git(linked, "add", "new.txt")
    git(linked, "commit", "-qm", "new")
    assert not await has_uncommitted_changes(linked)
    assert await has_new_commits(linked)
    assert not await has_new_commits(linked, base="HEAD")
    assert not await has_new_commits(plain)


@pytest.mark.req("SX10")
async def test_file_search_globs_and_greps(project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("def alpha(): ...\n")
    (project / "src" / "b.py").write_text("def beta(): ...\n")
    (project / "notes.md").write_text("alpha\n")
    (project / ".gitignore").write_text("build/\n")
    (project / "build").mkdir()
    (project / "build" / "c.py").write_text("def alpha(): ...\n")
    src = project / "src"
    assert await file_search(project, "**/*.py") == [src / "a.py", src / "b.py"]
    assert await file_search(project, "**/*", content=r"def alpha") == [src / "a.py"]
    assert len(await file_search(project, limit=1)) == 1
    with pytest.raises(ValueError, match="not a folder"):
        await file_search(project / "missing")


@pytest.mark.req("SX10")
async def test_the_prompt_history_is_the_apps(project: Path, isolated_home: Path) -> None:
    history = PromptHistoryManager(project)
    assert await history.entries() == []
    await history.add("first prompt")
    await history.add("second prompt")
    assert await history.entries() == ["first prompt", "second prompt"]
    assert await PromptHistoryManager(isolated_home).entries() == []  # another project's
    stored = (isolated_home / ".wave" / "history.jsonl").read_text()
    assert f'"project": "{project}"' in stored


@pytest.mark.req("SX10")
async def test_the_worktree_remove_hook_is_triggered(
    project: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    log = tmp_path / "remove.log"
    hook = f"python3 -c 'import json,sys; print(json.load(sys.stdin)[\"worktree_path\"])' >> {log}"
    hooks = {"WorktreeRemove": [{"hooks": [{"type": "command", "command": hook}]}]}
    agent = await Agent.create(
        workdir=project, base_url=model_server.base_url, api_key="k", model="m", hooks=hooks
    )
    try:
        assert await agent.trigger_worktree_remove_hook(project / "wt")
        assert log.read_text().strip() == str(project / "wt")
    finally:
        await agent.destroy()
    plain = await Agent.create(workdir=project, base_url=model_server.base_url, api_key="k")
    try:
        assert not await plain.trigger_worktree_remove_hook(project / "wt")  # no hook: False
    finally:
        await plain.destroy()
