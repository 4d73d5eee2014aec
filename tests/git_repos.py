"""Real git repositories for the tests: `git(cwd, *args)` and `committed_repo(root, files)`."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return out.stdout


def committed_repo(root: Path, files: dict[str, str]) -> Path:
    """A repository at `root` (branch main, a test identity) whose first commit holds `files`
    (relative path -> text); its resolved path."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "T")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    return root.resolve()
