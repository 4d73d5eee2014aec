"""A small hostile world for the gate families: a project (a git repository), its memory folder,
an outside folder with a victim file, and a program that leaves a marker when anything runs it."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from wave_tui.config.paths import WavePaths
from wave_tui.memory.auto_memory import AutoMemoryDir


@dataclass(frozen=True)
class World:
    home: Path
    proj: Path
    mem: Path
    out: Path

    @property
    def evil(self) -> Path:
        return self.out / "evil.sh"

    @property
    def pwned(self) -> Path:
        return self.out / "PWNED"

    def fill(self, template: str) -> str:
        return template.format(
            mem=self.mem, proj=self.proj, out=self.out, home=self.home, evil=self.evil
        )

    def snapshot(self) -> dict[str, str]:
        """Every file outside the memory folder that a write could reach (the .git folders too)."""
        seen: dict[str, str] = {}
        for root in (self.out, self.proj):
            for path in sorted(root.rglob("*")):
                if path.is_file() and not path.is_symlink() and path.name != "index":
                    seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
                elif path.is_symlink():
                    seen[str(path)] = "-> " + os.readlink(path)
        return seen


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"},
    )


_TEMPLATE: dict[str, Path] = {}


def _repo(folder: Path) -> None:
    """A committed repository with one changed file (built once per process, then copied)."""
    template = _TEMPLATE.get("repo")
    if template is None:
        template = Path(tempfile.mkdtemp(prefix="adv-repo-")) / "repo"
        _build_repo(template)
        _TEMPLATE["repo"] = template
    shutil.copytree(template, folder, symlinks=True)


def _build_repo(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    git("init", "-q", cwd=folder)
    git("config", "user.email", "t@example.com", cwd=folder)
    git("config", "user.name", "t", cwd=folder)
    (folder / "a.txt").write_text("one\n")
    git("add", "a.txt", cwd=folder)
    git("commit", "-qm", "one", cwd=folder)
    (folder / "a.txt").write_text("two\n")  # a change, so diff/status have work to do


def hostile_config(world: World) -> str:
    """Every program-running setting git reads from a repository's config, naming `evil`."""
    e = world.evil
    return (
        f"[core]\n\tfsmonitor = {e}\n\tsshCommand = {e}\n\tpager = {e}\n\thooksPath = {world.out}\n"
        f"[pager]\n\tstatus = {e}\n\tdiff = {e}\n\tlog = {e}\n"
        f"[gpg]\n\tprogram = {e}\n[log]\n\tshowSignature = true\n"
        f'[remote "origin"]\n\turl = ext::{e}\n\tuploadpack = {e}\n'
        f"[credential]\n\thelper = !{e}\n[core]\n\taskPass = {e}\n"
    )


def make_world(home: Path, tmp: Path) -> World:
    proj = tmp / "project"
    out = tmp / "outside"
    out.mkdir()
    (out / "victim.md").write_text("victim\n")
    _repo(proj)
    (proj / ".git" / "info" / "exclude").write_text("vendor/\n")
    memory = AutoMemoryDir(WavePaths.for_workdir(proj, home=home))
    memory.ensure()
    world = World(home=home, proj=proj, mem=memory.path, out=out)
    world.evil.write_text(f"#!/bin/sh\ntouch {world.pwned}\ncat\n")
    world.evil.chmod(0o755)
    # A repository inside the memory folder with a hostile config (the fork may write files there).
    _repo(world.mem / "r")
    with (world.mem / "r" / ".git" / "config").open("a") as f:
        f.write(hostile_config(world))
    # A vendored bare-ish repository shipped with the project, hostile too (no write needed).
    vendor = proj / "vendor" / "lib.git"
    _repo(vendor)
    with (vendor / ".git" / "config").open("a") as f:
        f.write(hostile_config(world))
    return world
