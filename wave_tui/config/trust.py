"""Trust for project-provided code: hooks, project `.mcp.json` servers, project commands.

A project folder can ship code that wave would run (a `PreToolUse` hook in `.wave/settings.json`,
a stdio MCP server in `.mcp.json`). In the app such code runs only once the user trusted that
project's *set* of commands: the set is fingerprinted, so a changed set asks again. The answer is
remembered per project in `~/.wave/trust.json` (locked, replaced atomically). `wave -p` runs them
without asking — running headless in a folder is the invoker's trust decision.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.fileio import atomic_write_text, file_lock
from wave_tui.config.records import record

TrustKind = Literal[
    "hooks", "mcp", "commands", "lsp", "settings", "permissions", "workflows", "imports"
]
TrustMode = Literal["ask", "invoker"]  # app: ask once per set; `wave -p`: the invoker trusts
# Every notice of project code held back for trust says this: once the user trusts, the app
# finds those lines in the chat and says the code runs now.
NOT_TRUSTED_YET = "not trusted yet"


def fingerprint(items: Iterable[str]) -> str:
    """A stable digest of a set of commands (order and duplicates do not matter)."""
    digest = hashlib.sha256()
    for item in sorted(set(items)):
        digest.update(item.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


@record
class TrustRequested:
    """What the app shows when a project's code needs the user's trust before it may run."""

    project: Path
    kind: TrustKind
    items: tuple[str, ...]  # the commands, as the user should read them
    fingerprint: str


def _key(project: Path, kind: TrustKind) -> str:
    return f"{project.resolve()}::{kind}"


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class TrustStore:
    """`~/.wave/trust.json`: project + kind → the fingerprint the user trusted."""

    def __init__(self, path: Path, mode: TrustMode = "ask") -> None:
        self.path = path  # WavePaths.trust_file
        self.mode = mode

    def is_trusted(self, project: Path, kind: TrustKind, items: Iterable[str]) -> bool:
        # req: HK10
        items = tuple(items)
        if not items or self.mode == "invoker":
            return True
        entry = _load(self.path).get(_key(project, kind))
        return isinstance(entry, dict) and entry.get("fingerprint") == fingerprint(items)

    def request(
        self, project: Path, kind: TrustKind, items: Iterable[str]
    ) -> TrustRequested | None:
        """None when the set may run; otherwise what to ask the user."""
        items = tuple(sorted(set(items)))
        if self.is_trusted(project, kind, items):
            return None
        return TrustRequested(project.resolve(), kind, items, fingerprint(items))

    def record(self, request: TrustRequested) -> None:
        """The user trusted this set (blocking file I/O: call it from a thread in async code)."""
        with file_lock(self.path):
            data = _load(self.path)
            data[_key(request.project, request.kind)] = {
                "fingerprint": request.fingerprint,
                "trustedAt": datetime.now(UTC).isoformat(timespec="seconds"),
            }
            atomic_write_text(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n")

    def revoke(self, project: Path, kind: TrustKind) -> None:
        with file_lock(self.path):
            data = _load(self.path)
            if data.pop(_key(project, kind), None) is not None:
                atomic_write_text(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n")
