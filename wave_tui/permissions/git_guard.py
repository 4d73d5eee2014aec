"""X5: auto-approved git never runs a program named by configuration.

Two layers. (1) Auto-approval only for git inside the project's own repository: a `-C` into a
nested repository (a `vendor/lib.git`, a repository the extraction fork built in the memory
folder) or out of the project asks; so does a project repository whose local config defines
filter or diff drivers, an external diff, or includes. (2) Every auto-approved command runs with
`HARDENED_GIT_ENV`: system and user config off, the single-valued program settings overridden
from the command line level (beats every config file), no transport protocols, no optional
index writes (no hooks run), no pager.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from wave_tui.config.git_command import NO_CREDENTIAL_HELPER, PROGRAM_OVERRIDES
from wave_tui.config.git_layout import is_git_dir
from wave_tui.files.real_paths import is_inside, real_path, resolve_tool_path

# Command-line-level config (GIT_CONFIG_COUNT, git >= 2.31): wins over repository config.
# The program settings are wave's own git's list (one home); read-only git adds no transport.
_OVERRIDES: tuple[tuple[str, str], ...] = (
    *PROGRAM_OVERRIDES,
    NO_CREDENTIAL_HELPER,
    ("core.sshCommand", "false"),
    ("protocol.allow", "never"),
    ("core.attributesFile", "/dev/null"),
)


def _hardened_env() -> dict[str, str]:
    env = {
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_SSH_COMMAND": "false",
        "GIT_ALLOW_PROTOCOL": "",  # an empty list: no transport at all (`remote show` stays local)
        "GIT_CONFIG_COUNT": str(len(_OVERRIDES)),
    }
    for i, (key, value) in enumerate(_OVERRIDES):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


# req: X5
HARDENED_GIT_ENV: Mapping[str, str] = _hardened_env()

_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)\s*(?:"[^"]*"\s*)?\]\s*(.*)$')
_RISKY_SECTIONS = frozenset({"filter", "include", "includeif"})
_RISKY_DIFF_KEYS = frozenset({"external", "textconv", "command"})


def _config_runs_programs(text: str) -> bool:
    """Whether a git config file defines what the overrides cannot neutralise (drivers, includes)."""
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        match = _SECTION.match(line)
        if match:
            section = match.group(1).lower()
            line = match.group(2).strip()
        elif line.startswith("["):
            return True  # a header we cannot read: assume the worst
        base = section.split(".", 1)[0]
        if base in _RISKY_SECTIONS:
            return True
        key = line.split("=", 1)[0].strip().lower()
        if base == "diff" and key in _RISKY_DIFF_KEYS:
            return True
    return False


# req: X5
def _git_dirs_of(folder: Path) -> list[Path]:
    """Every git directory git's discovery may settle on from `folder`, walking up.

    Git skips a `.git` folder that is not a valid repository (an empty `.git/`) and goes on to the
    parents, so every such candidate is scanned up to the first valid one: stopping at the first
    `.git` would vouch for a repository git never uses while it runs a parent's drivers.
    """
    found: list[Path] = []
    for candidate in (folder, *folder.parents):
        dot = candidate / ".git"
        if dot.is_file():
            text = _read(dot)
            if text is None or not text.startswith("gitdir:"):
                return [*found, dot]  # unreadable pointer: scanned (and found unreadable) below
            pointed = Path(text[len("gitdir:") :].strip())
            return [*found, real_path(candidate / pointed) or dot]  # git stops here, valid or not
        if dot.is_dir():
            found.append(dot)
            if is_git_dir(dot):
                return found
        elif dot.exists() or dot.is_symlink():
            return [*found, dot]  # a dangling link or something odd: not tame
        if is_git_dir(candidate):
            return [*found, candidate]
    return found


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _repo_config_is_tame(git_dir: Path) -> bool:
    if not git_dir.is_dir():
        return False
    dirs = [git_dir]
    common = _read(git_dir / "commondir")
    if common is not None:
        dirs.append(real_path(git_dir / common.strip()) or git_dir)
    for folder in dirs:
        for name in ("config", "config.worktree"):
            text = _read(folder / name)
            if text is not None and _config_runs_programs(text):
                return False
        attributes = _read(folder / "info" / "attributes")
        if attributes is not None and attributes.strip():
            return False
    return True


def _nested_repository(target: Path, root: Path) -> bool:
    """A repository marker between `target` and the project root (not the root's own)."""
    for folder in (target, *target.parents):
        if folder == root or root not in folder.parents:
            return False
        if (folder / ".git").exists() or (folder / "HEAD").exists() or folder.name == ".git":
            return True
    return False


# req: X5
def gits_are_contained(directories: list[str], workdir: Path, project_root: Path) -> bool:
    """Whether gits running in `directories` (their `-C`, "" = the cwd) all stay in the
    project's own, tame repository."""
    if not directories:
        return True
    root = real_path(project_root)
    if root is None:
        return False
    for directory in directories:
        target = resolve_tool_path(directory or ".", workdir)
        if target is None or not is_inside(target, root) or _nested_repository(target, root):
            return False
    return all(_repo_config_is_tame(git_dir) for git_dir in _git_dirs_of(root))
