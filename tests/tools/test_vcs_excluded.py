"""Glob and Grep never list or search VCS folders (SP6), whatever glob the model gives: in
ripgrep the last matching `--glob` wins, so the exclusion must come after the caller's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from wave_tui.tools.base import ToolContext
from wave_tui.tools.glob_tool import GlobTool
from wave_tui.tools.grep import GrepTool

BACKENDS = [pytest.param(True, id="ripgrep"), pytest.param(False, id="python")]
PATTERNS = ["*", "**", "**/*", ".git/config", ".git/**", "**/config"]


@pytest.fixture
def repo(ctx: ToolContext) -> Path:
    root = ctx.workdir
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "src").mkdir()
    (root / "src" / "config").write_text("repositoryformatversion is a word here too\n")
    (root / "README.md").write_text("hello\n")
    assert (root / ".git" / "config").is_file()
    return root


@pytest.mark.req("SP6")
@pytest.mark.parametrize("use_rg", BACKENDS)
@pytest.mark.parametrize("pattern", PATTERNS)
async def test_sp6_glob_never_lists_git_internals(
    ctx: ToolContext, repo: Path, use_rg: bool, pattern: str
) -> None:
    result = await GlobTool(use_ripgrep=use_rg).run({"pattern": pattern}, ctx)
    listed = set(result.content.splitlines())
    assert not [line for line in listed if "/.git/" in line]
    expected = {
        "*": {"README.md", "src/config"},
        "**": {"README.md", "src/config"},
        "**/*": {"README.md", "src/config"},
        "**/config": {"src/config"},
    }.get(pattern, set())
    assert listed == ({str(repo / name) for name in expected} or {"No files found"})


@pytest.mark.req("SP6")
@pytest.mark.parametrize("use_rg", BACKENDS)
@pytest.mark.parametrize("glob", PATTERNS)
@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
async def test_sp6_grep_never_searches_git_internals(
    ctx: ToolContext, repo: Path, use_rg: bool, glob: str, mode: str
) -> None:
    args = {"pattern": "repositoryformatversion", "glob": glob, "output_mode": mode}
    result = await GrepTool(use_ripgrep=use_rg).run(args, ctx)
    assert "/.git/" not in result.content
    if glob.startswith(".git/"):
        assert result.content == "No matches found"
    else:
        assert str(repo / "src" / "config") in result.content
