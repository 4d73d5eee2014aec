"""Wave's own git, hardened (`config/git_command.py`): the plugin updater's fetch and reset in a
checkout whose config and hooks were planted run none of them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from wave_tui.features.plugins.git import fetch_latest


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return out.stdout


@pytest.mark.req("HR2")
async def test_a_plugin_update_runs_no_program_its_checkout_names(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    (source / "a.txt").write_text("one\n")
    (source / ".gitattributes").write_text("*.txt filter=evil\n")
    git(source, "add", ".")
    git(source, "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "-m", "one")
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(source), str(checkout))
    marker = tmp_path / "ran"
    program = tmp_path / "evil.sh"
    program.write_text(f'#!/bin/sh\necho "$0" >> {marker}\ncat\n')
    program.chmod(0o755)
    for hook in ("reference-transaction", "post-checkout", "post-index-change"):
        (checkout / ".git" / "hooks" / hook).symlink_to(program)
    git(checkout, "config", "core.fsmonitor", str(program))
    git(checkout, "config", "filter.evil.smudge", str(program))
    git(checkout, "config", "remote.origin.uploadpack", str(program))
    (source / "a.txt").write_text("two\n")
    git(source, "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "-am", "two")
    commit = await fetch_latest(checkout, "plugin x")
    assert commit == git(source, "rev-parse", "HEAD").strip()
    assert (checkout / "a.txt").read_text() == "two\n"
    assert not marker.exists(), marker.read_text()
