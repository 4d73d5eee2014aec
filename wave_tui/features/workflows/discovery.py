"""Where workflows come from: `<project>/.wave/workflows/*.js`, `~/.wave/workflows/*.js` and each
enabled plugin's `workflows/` folder (named `plugin:name`), and which of them may run.

A workflow is JavaScript run in the same embedded engine as Exec (no files, network or modules):
the script itself can do nothing but start subagents, and each of those goes through the normal
permission pipeline. A project or plugin script still chooses the prompts those agents get, so it
runs only once the user trusted the set of such scripts (fingerprinted by content: an edit asks
again); the user's own scripts are trusted as the user's settings are.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record

WORKFLOW_SUFFIX = ".js"
MAX_SCRIPT_BYTES = 256 * 1024  # a bigger file is not a workflow script
PERMISSIONS_PREFIX = "permissions:"  # `// permissions: WebSearch, WebFetch` in the head
WorkflowScope = Literal["project", "user", "plugin", "builtin"]
NEEDS_TRUST: frozenset[WorkflowScope] = frozenset({"project", "plugin"})


@record
class WorkflowDef:
    name: str
    scope: WorkflowScope
    path: Path
    code: str
    description: str  # the script's first `//` comment line, if any
    # Tools its agents may use once the user allowed them for the run (asked once per run).
    permissions: tuple[str, ...] = ()

    @property
    def trust_item(self) -> str:
        """How the trust question names this script: its file and a digest of its text."""
        digest = hashlib.sha256(self.code.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return f"workflow {self.name} ({self.path}) sha256:{digest}"


def _description(code: str) -> str:
    for line in code.splitlines():
        text = line.strip()
        if not text:
            continue
        return text[2:].strip() if text.startswith("//") else ""
    return ""


def _permissions(code: str) -> tuple[str, ...]:
    """The tools named by `// permissions: A, B` in the script's leading comments."""
    for line in code.splitlines():
        text = line.strip()
        if text and not text.startswith("//"):
            break
        body = text[2:].strip()
        if body.lower().startswith(PERMISSIONS_PREFIX):
            names = body[len(PERMISSIONS_PREFIX) :].split(",")
            return tuple(n.strip() for n in names if n.strip())
    return ()


def workflow_of(name: str, scope: WorkflowScope, path: Path, code: str) -> WorkflowDef:
    return WorkflowDef(name, scope, path, code, _description(code), _permissions(code))


# req: WK1
def _read_script(path: Path, within: Path | None) -> str | None:
    """The script's text; None for a file that is not one — too big, not UTF-8, or a link
    leading out of `within` (a repository's `x.js -> ~/.ssh/id_rsa` would hand the file to the
    engine, whose syntax error quotes it to the model; None: the user's own folder, whose
    links are the user's). Opened without following a link at the last step, so a swap after
    the check reads nothing."""
    try:
        real = path.resolve(strict=True)
        if within is not None and not real.is_relative_to(within.resolve(strict=True)):
            return None
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = handle.read(MAX_SCRIPT_BYTES + 1)
        return None if len(data) > MAX_SCRIPT_BYTES else data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _read_dir(folder: Path, scope: WorkflowScope, prefix: str = "") -> list[WorkflowDef]:
    """Blocking: call it from a thread in async code."""
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == WORKFLOW_SUFFIX)
    except OSError:
        return []
    found: list[WorkflowDef] = []
    within = folder if scope in NEEDS_TRUST else None
    for path in files:
        code = _read_script(path, within)
        if code is not None:
            found.append(workflow_of(prefix + path.stem, scope, path, code))
    return found


# req: WK1
def discover(
    paths: WavePaths,
    plugin_dirs: Sequence[tuple[str, Path]] = (),
    builtin: Sequence[WorkflowDef] = (),
) -> list[WorkflowDef]:
    """Every workflow, the project's first: a project script hides a user one of its name, and
    either hides a built-in one. `plugin_dirs`: (plugin name, its `workflows/` folder).
    Blocking (reads the folders)."""
    found: dict[str, WorkflowDef] = {}
    sources = [
        _read_dir(paths.project_workflows_dir, "project"),
        _read_dir(paths.user_workflows_dir, "user"),
        *(_read_dir(folder, "plugin", f"{plugin}:") for plugin, folder in plugin_dirs),
        list(builtin),
    ]
    for source in sources:
        for workflow in source:
            found.setdefault(workflow.name, workflow)
    return list(found.values())


def trust_items(workflows: Iterable[WorkflowDef]) -> list[str]:
    """The scripts that wait for trust before they may run (project and plugin ones)."""
    return [w.trust_item for w in workflows if w.scope in NEEDS_TRUST]
