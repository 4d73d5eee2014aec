"""Every git that wave runs itself, hardened: no hook, no fsmonitor, no pager, editor, askpass,
proxy program (and `UPLOAD_PACK_OPTION` for fetches), no `ext::` transport, and no filter or diff driver a repository's
own config names.

A sandboxed command can write the project's `.git/hooks` or `.git/config`; wave's own git
(`EnterWorktree`, `wave --worktree`, the project id, plugin clones) runs outside the sandbox and
never asks, so nothing a repository says may turn it into a program. The settings are given at
git's command-line level (`GIT_CONFIG_COUNT`), which beats every config file; the drivers a
repository config defines are emptied by name, and a config that includes other files (which
this reader cannot follow) is refused.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

GIT_PROGRAM = "git"

# Single-valued settings that name programs, overridden at the command-line level. Shared with
# the permission layer's read-only git (`permissions/git_guard.py`).
PROGRAM_OVERRIDES: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("sequence.editor", "false"),
    ("core.askPass", ""),
    ("core.gitProxy", ""),
    ("core.alternateRefsCommand", ""),
    ("diff.external", ""),
    ("log.showSignature", "false"),
    ("protocol.ext.allow", "never"),
)
# A fetch or ls-remote names its upload-pack on the command line: git takes the *first*
# `remote.<name>.uploadpack` it reads (the repository's), and runs it locally for a path URL.
UPLOAD_PACK_OPTION = "--upload-pack=git-upload-pack"
# Credential helpers form a list; an empty value empties it (the user's helpers too).
NO_CREDENTIAL_HELPER: tuple[str, str] = ("credential.helper", "")
# Environment variables that name a program wave's own git never needs.
_PROGRAM_VARIABLES = (
    "GIT_EXTERNAL_DIFF",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PROXY_COMMAND",
    "GIT_CONFIG_PARAMETERS",
)
# Set in the environment, GIT_SSH_COMMAND beats a repository's `core.sshCommand`.
_BATCH_SSH = "ssh -o BatchMode=yes"
_DRIVER_KEYS: Mapping[str, tuple[tuple[str, str], ...]] = {
    "filter": (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")),
    "diff": (("textconv", ""), ("command", "")),
    "merge": (("driver", ""),),
}
_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\]|\\.)*)"\s*)?\]')
_INCLUDES = frozenset({"include", "includeif"})


class UnsafeRepositoryError(ValueError):
    """A repository whose config wave cannot neutralise: one line."""


def _driver_overrides(config_text: str, source: Path) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for line in config_text.splitlines():
        match = _SECTION.match(line)
        if match is None:
            continue
        section = match.group(1).lower()
        base, _, dotted = section.partition(".")
        if base in _INCLUDES:
            raise UnsafeRepositoryError(
                f"the git config {source} includes other files; wave runs no git there"
            )
        name = match.group(2) if match.group(2) is not None else dotted
        if base in _DRIVER_KEYS and name:
            found += [(f"{base}.{name}.{key}", value) for key, value in _DRIVER_KEYS[base]]
    return found


def _config_files(git_dir: Path) -> list[Path]:
    dirs = [git_dir]
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        common = ""
    if common:
        dirs.append(git_dir / common)
    return [folder / name for folder in dirs for name in ("config", "config.worktree")]


# req: HR2
def repository_overrides(git_dir: Path) -> list[tuple[str, str]]:
    """Empties every filter, diff and merge driver the repository's own config defines."""
    found: list[tuple[str, str]] = []
    for path in _config_files(git_dir):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found += _driver_overrides(text, path)
    return found


def _with_overrides(env: dict[str, str], overrides: Sequence[tuple[str, str]]) -> dict[str, str]:
    env["GIT_CONFIG_COUNT"] = str(len(overrides))
    for i, (key, value) in enumerate(overrides):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def _base_env(environ: Mapping[str, str] | None) -> dict[str, str]:
    env = {
        key: value
        for key, value in (os.environ if environ is None else environ).items()
        if key not in _PROGRAM_VARIABLES and not key.startswith("GIT_CONFIG_")
    }
    env.update(GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", PAGER="cat")
    env["GIT_SSH_COMMAND"] = env.get("GIT_SSH_COMMAND") or _BATCH_SSH
    return env


# req: HR2
def hardened_git_env(
    environ: Mapping[str, str] | None = None, repository: Path | None = None
) -> dict[str, str]:
    """The environment of a git wave runs in a project repository (its git dir `repository`,
    when known, has its drivers emptied): no program the repository names, no credential
    helper. UnsafeRepositoryError when the repository's config includes other files."""
    overrides = [*PROGRAM_OVERRIDES, NO_CREDENTIAL_HELPER]
    if repository is not None:
        overrides += repository_overrides(repository)
    return _with_overrides(_base_env(environ), overrides)


# req: HR2
def network_git_env(
    environ: Mapping[str, str] | None = None, repository: Path | None = None
) -> dict[str, str]:
    """For wave's own clones (plugins, markets): hardened as above, but the user's credential
    helpers stay, so a private repository the user can reach still clones."""
    overrides = [*PROGRAM_OVERRIDES]
    if repository is not None:
        overrides += repository_overrides(repository)
    return _with_overrides(_base_env(environ), overrides)


# req: HR2
def run_hardened_git(
    cwd: Path, *args: str, timeout: float, repository: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`git args` in `cwd`, hardened, output captured, no standard input. Blocking."""
    return subprocess.run(
        [GIT_PROGRAM, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
        env=hardened_git_env(repository=repository),
    )
