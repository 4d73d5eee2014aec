"""Every filesystem location wave-tui knows about, in one place.

`~` is always `$HOME` (read at construction), so tests can point HOME at a temporary folder.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from functools import cache, cached_property
from pathlib import Path

from wave_tui.config.git_command import run_hardened_git
from wave_tui.config.git_layout import read_git_layout
from wave_tui.config.records import record

PROJECT_ID_MAX = 200
MEMORY_INDEX_FILENAME = "MEMORY.md"  # the auto-memory index, in every memory folder
PROJECT_ID_KEEP = 191


class OwnedPathError(OSError):
    """A path wave owns has the wrong type: a file where wave keeps a folder, or the reverse."""


def home_dir() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def encode_project_id(path: str) -> str:
    """Encode a path as a project id, compatible with the TypeScript Wave.

    `/home/alice/my project` -> `home-alice-my_project`; long ids are cut and hashed.
    """
    encoded = path[1:] if path.startswith("/") else path
    encoded = re.sub(r"\s+", "_", encoded.replace("/", "-"))
    if len(encoded) > PROJECT_ID_MAX:
        digest = hashlib.sha256(path.encode("utf-8")).hexdigest()[:8]
        encoded = f"{encoded[:PROJECT_ID_KEEP]}-{digest}"
    return encoded


def _git_lines(workdir: Path, *args: str) -> list[str]:
    """git's output lines, also those printed before it failed; [] when git cannot run."""
    try:
        out = run_hardened_git(workdir, *args, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.stdout.splitlines()]


@record
class WavePaths:
    """Locations for one project root (the work dir) under one home."""

    project_root: Path
    home: Path

    @classmethod
    def for_workdir(cls, workdir: Path | str | None = None, home: Path | None = None) -> WavePaths:
        root = Path(workdir) if workdir is not None else Path.cwd()
        return cls(project_root=root.resolve(), home=(home or home_dir()).resolve())

    @classmethod
    def for_stored_project(cls, project_id: str, root: Path | None, home: Path) -> WavePaths:
        """A stored project's paths (`wave sessions list --all`): its id is its folder's name,
        which the folder it was made from (when known) may no longer encode to."""
        paths = cls(project_root=root or home, home=home)
        paths.__dict__["project_id"] = project_id  # the cached_property's slot
        return paths

    # -- user level -------------------------------------------------------------------------
    @property
    def wave_home(self) -> Path:
        return self.home / ".wave"

    @property
    def user_settings(self) -> Path:
        return self.wave_home / "settings.json"

    @property
    def input_history(self) -> Path:
        """What the user typed in the app, one JSON line per entry (all projects)."""
        return self.wave_home / "history.jsonl"

    @property
    def telemetry_file(self) -> Path:
        """The JSONL telemetry exporter's file (one record a line, rotated at a size cap)."""
        return self.wave_home / "telemetry.jsonl"

    @property
    def pasted_images(self) -> Path:
        """Images pasted from the clipboard in the app (Ctrl+V), one file each."""
        return self.wave_home / "pasted-images"

    @property
    def user_agents_md(self) -> Path:
        return self.wave_home / "AGENTS.md"

    @property
    def user_rules_dirs(self) -> list[Path]:
        """User rule roots, highest precedence first."""
        return [self.wave_home / "rules", self.home / ".claude" / "rules"]

    @property
    def projects_dir(self) -> Path:
        return self.wave_home / "projects"

    # -- project level ----------------------------------------------------------------------
    @property
    def project_settings(self) -> Path:
        return self.project_root / ".wave" / "settings.json"

    @property
    def local_settings(self) -> Path:
        return self.project_root / ".wave" / "settings.local.json"

    @property
    def settings_files(self) -> list[Path]:
        """Settings files, lowest precedence first (later wins)."""
        return [self.user_settings, self.project_settings, self.local_settings]

    @property
    def project_mcp_json(self) -> Path:
        """Project MCP servers (`{"mcpServers": {...}}`), shared with the team like `.wave/`."""
        return self.project_root / ".mcp.json"

    @property
    def project_agents_md(self) -> Path:
        return self.project_root / "AGENTS.md"

    @property
    def project_rules_dirs(self) -> list[Path]:
        """Project rule roots, highest precedence first."""
        return [self.project_root / ".wave" / "rules", self.project_root / ".claude" / "rules"]

    @cached_property
    def _git_dirs(self) -> tuple[str | None, str | None]:
        """(`--show-toplevel`, `--git-common-dir`): from the file system where that is exact,
        else from one git process."""
        layout = read_git_layout(self.project_root)
        if layout is not None:
            return layout.top, layout.common
        # git prints the common dir before it fails on a missing work tree (a bare repository).
        lines = _git_lines(self.project_root, "rev-parse", "--git-common-dir", "--show-toplevel")
        common = lines[0] if lines else None
        top = lines[1] if len(lines) > 1 else None
        return top or None, common or None

    @cached_property
    def repo_top(self) -> Path | None:
        """The top level of the git work tree containing the project root, if any."""
        top = self._git_dirs[0]
        return Path(top).resolve() if top else None

    # req: A3
    # req: X3
    @cached_property
    def main_repo_root(self) -> Path | None:
        """The main repository root shared by every work tree (from `--git-common-dir`)."""
        common = self._git_dirs[1]
        if not common:
            return None
        common_path = (self.project_root / common).resolve()
        return common_path.parent if common_path.name == ".git" else common_path

    # req: X3
    @cached_property
    def project_id(self) -> str:
        key = self.main_repo_root or self.project_root
        return encode_project_id(str(key))

    @property
    def project_dir(self) -> Path:
        """`~/.wave/projects/<project-id>/`: transcripts and auto memory."""
        return self.projects_dir / self.project_id

    @property
    def memory_dir(self) -> Path:
        return self._custom_memory_dir or self.project_dir / "memory"

    # req: MR6
    @cached_property
    def _custom_memory_dir(self) -> Path | None:
        """The user settings' `autoMemoryDirectory` (see `memory_location`)."""
        # Imported here: the settings reader is built on this module.
        from wave_tui.config.memory_location import custom_memory_dir

        return custom_memory_dir(self)

    @property
    def memory_index(self) -> Path:
        return self.memory_dir / MEMORY_INDEX_FILENAME

    @property
    def citations_file(self) -> Path:
        """The hashes of the text memories cite (beside the memory folder, never in it)."""
        return self.project_dir / "memory-citations.json"

    @property
    def conflicts_file(self) -> Path:
        """The contradictions `wave memory check` found, with a hash of each side's text."""
        return self.project_dir / "memory-conflicts.json"

    @property
    def memory_loads_file(self) -> Path:
        """Append-only log of rule and path-scoped memory loads (one line per load)."""
        return self.project_dir / "memory-loads.log"

    @property
    def team_memory_dir(self) -> Path:
        """`.wave/memory/` in the project: team memory, committed with the code."""
        return self.project_root / ".wave" / "memory"

    # -- custom commands and skills (project before user, .wave before .claude: CS1) ---------
    @property
    def command_dirs(self) -> list[tuple[Path, str]]:
        """(folder, scope) of custom-command roots, highest precedence first."""
        return self._extension_dirs("commands")

    @property
    def skill_dirs(self) -> list[tuple[Path, str]]:
        """(folder, scope) of skill roots, highest precedence first."""
        return self._extension_dirs("skills")

    def _extension_dirs(self, kind: str) -> list[tuple[Path, str]]:
        return [
            (self.project_root / ".wave" / kind, "project"),
            (self.project_root / ".claude" / kind, "project"),
            (self.wave_home / kind, "user"),
            (self.home / ".claude" / kind, "user"),
        ]

    # -- plugins and their markets (`~/.wave/plugins/`) -----------------------------------------
    @property
    def plugins_dir(self) -> Path:
        return self.wave_home / "plugins"

    @property
    def known_marketplaces_file(self) -> Path:
        return self.plugins_dir / "known_marketplaces.json"

    @property
    def installed_plugins_file(self) -> Path:
        return self.plugins_dir / "installed_plugins.json"

    @property
    def plugin_cache_dir(self) -> Path:
        """`cache/<market>/<name>/<version>/`: one installed plugin version each."""
        return self.plugins_dir / "cache"

    @property
    def marketplaces_dir(self) -> Path:
        """`marketplaces/<name>/`: the checkout of a market added from git."""
        return self.plugins_dir / "marketplaces"

    @property
    def trust_file(self) -> Path:
        return self.wave_home / "trust.json"

    @property
    def mcp_auth_file(self) -> Path:
        """OAuth tokens of HTTP MCP servers, by server (mode 0600)."""
        return self.wave_home / "mcp-auth.json"

    def transcript(self, session_id: str) -> Path:
        return self.project_dir / f"{session_id}.jsonl"

    # -- work that spans turns: tasks, plans, background output, subagents --------------------
    @property
    def tasks_root(self) -> Path:
        return self.wave_home / "tasks"

    def task_list_dir(self, list_id: str) -> Path:
        """`~/.wave/tasks/<task-list-id>/`: one task list, shared by sessions naming that id."""
        return self.tasks_root / safe_component(list_id)

    def plan_file(self, session_id: str) -> Path:
        """`~/.wave/plans/<session-id>.md`: the plan `ExitPlanMode` writes."""
        return self.wave_home / "plans" / f"{safe_component(session_id)}.md"

    @property
    def background_dir(self) -> Path:
        """`~/.wave/background/`: output files of background commands."""
        return self.wave_home / "background"

    @property
    def daemon_dir(self) -> Path:
        """`~/.wave/daemon/` (0700): the `wave daemon` socket, lock, log and session registry."""
        return self.wave_home / "daemon"

    @property
    def daemon_socket(self) -> Path:
        """The daemon's Unix socket (0600): one JSON object per line each way."""
        return self.daemon_dir / "daemon.sock"

    @property
    def daemon_lock(self) -> Path:
        """Held (flock) by the one running daemon; holds its pid."""
        return self.daemon_dir / "daemon.lock"

    @property
    def daemon_registry(self) -> Path:
        """The daemon's sessions (id, folder, worktree, permission mode), restored on start."""
        return self.daemon_dir / "sessions.json"

    @property
    def daemon_log(self) -> Path:
        """What the daemon process writes to stderr."""
        return self.daemon_dir / "daemon.log"

    def subagent_transcript(self, session_id: str, agent_id: str) -> Path:
        """`~/.wave/projects/<id>/<session-id>/subagents/<agent-id>.jsonl`."""
        session = safe_component(session_id)
        return self.project_dir / session / "subagents" / f"{safe_component(agent_id)}.jsonl"

    def workflow_run(self, session_id: str, run_id: str) -> Path:
        """`~/.wave/projects/<id>/<session-id>/workflows/<run-id>.json`: one workflow run."""
        session = safe_component(session_id)
        return self.project_dir / session / "workflows" / f"{safe_component(run_id)}.json"

    @property
    def user_workflows_dir(self) -> Path:
        """`~/.wave/workflows/`: the user's workflow scripts."""
        return self.wave_home / "workflows"

    @property
    def project_workflows_dir(self) -> Path:
        """`<project>/.wave/workflows/`: the project's workflow scripts (they need trust)."""
        return self.project_root / ".wave" / "workflows"

    @property
    def checkpoints_root(self) -> Path:
        """`~/.wave/projects/<id>/checkpoints/`: the file checkpoints of every session."""
        return self.project_dir / "checkpoints"

    def checkpoint_dir(self, session_id: str) -> Path:
        """`~/.wave/projects/<id>/checkpoints/<session-id>/`: what /rewind puts back."""
        return self.checkpoints_root / safe_component(session_id)

    @property
    def running_dir(self) -> Path:
        """`~/.wave/projects/<id>/running/`: one `<pid>.json` per wave running here, naming
        its session (so `wave sessions delete` can refuse a session in use)."""
        return self.project_dir / "running"

    @property
    def agent_dirs(self) -> list[Path]:
        """Custom subagent definitions, highest precedence first (project over user)."""
        return [self.project_root / ".wave" / "agents", self.wave_home / "agents"]


_UNSAFE_COMPONENT = re.compile(r"[^A-Za-z0-9._-]")


def safe_component(name: str) -> str:
    """`name` as one path component: no separators, no `..`, never empty."""
    cleaned = _UNSAFE_COMPONENT.sub("_", name).strip(".") or "_"
    return cleaned[:PROJECT_ID_MAX]


def display_path(path: Path | str, root: Path, home: Path | None = None) -> str:
    """How wave shows a path to the user, everywhere: relative inside the project `root` (`.` for
    the root itself), `~/…` under `home` (the user's home when not given), else absolute.

    A path already resolved (a tool's target) still counts as inside a root reached through a
    symlink: each folder is also tried as its real path.
    """
    target = Path(path)
    for base, prefix in ((root, ""), (Path.home() if home is None else home, "~/")):
        for folder in (base, _real_folder(base)):
            if target.is_relative_to(folder):
                rel = target.relative_to(folder).as_posix()
                return ("~" if rel == "." else prefix + rel) if prefix else rel
    return str(target)


@cache
def _real_folder(folder: Path) -> Path:
    # Cached: a chat shows many paths under the same two folders, and they do not move.
    return Path(os.path.realpath(folder))


def _wrong_type(path: Path, want_folder: bool) -> bool:
    try:
        is_dir = path.is_dir()
        exists = is_dir or path.exists()
    except OSError:
        return False
    return exists and is_dir != want_folder


def _any_project_folder_broken(projects_dir: Path) -> bool:
    """Is any `~/.wave/projects/<id>` or its `memory` a file, or a `MEMORY.md` a folder?
    (two stats per project, no git)"""
    try:
        entries = os.scandir(projects_dir)
    except OSError:
        return False
    with entries:
        for entry in entries:
            try:
                if not entry.is_dir():
                    return True
                memory = os.path.join(entry.path, "memory")
                if os.path.lexists(memory) and not os.path.isdir(memory):
                    return True
                if os.path.isdir(os.path.join(memory, MEMORY_INDEX_FILENAME)):
                    return True
            except OSError:
                continue
    return False


def owned_path_problem(paths: WavePaths) -> str | None:  # req: X10
    """One line for the first path wave owns that has the wrong type, else None.

    Checked top down, so `~/.wave` being a file is reported rather than what lies below it."""
    folders, files = _run_paths(paths)
    memory_folders, memory_files = _memory_paths(paths)
    return _first_problem(paths, folders + memory_folders, files + memory_files)


def run_path_problem(paths: WavePaths) -> str | None:
    """`owned_path_problem` for the paths a run cannot do without (`~/.wave`, its locks, the
    transcript folder); a memory source of the wrong type is warned and skipped by the run."""
    return _first_problem(paths, *_run_paths(paths))


def _run_paths(paths: WavePaths) -> tuple[list[Path], list[Path]]:
    folders = [paths.wave_home, paths.wave_home / "locks", paths.projects_dir]
    if _any_project_folder_broken(paths.projects_dir):
        # Only now is the project id worth its git subprocess.
        folders.append(paths.project_dir)
    return folders, []


def _memory_paths(paths: WavePaths) -> tuple[list[Path], list[Path]]:
    files = [paths.user_agents_md, paths.project_agents_md]
    if not _any_project_folder_broken(paths.projects_dir):
        return [], files
    return [paths.memory_dir], [*files, paths.memory_index]


def _first_problem(paths: WavePaths, folders: list[Path], files: list[Path]) -> str | None:
    for folder in folders:
        if _wrong_type(folder, want_folder=True):
            return (
                f"{display_path(folder, paths.project_root, paths.home)} is a file, but wave keeps a folder there; "
                "move the file away"
            )
    for file in files:
        if _wrong_type(file, want_folder=False):
            return (
                f"{display_path(file, paths.project_root, paths.home)} is a folder, but wave keeps memory in a file there; "
                "rename or remove the folder"
            )
    return None
