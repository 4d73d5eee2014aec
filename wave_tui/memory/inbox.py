"""Review inbox: with `autoMemoryReview: true` the fork's writes wait here until accepted (MX8).

A pending item is one memory file's proposed content (`after`) next to what the file held when it
was proposed (`before`, `null` = new file), stored as `~/.wave/projects/<id>/inbox/<item id>.json`.
Nothing reaches the memory folder before `accept`; `reject` drops the proposal. Accepting a file
that changed since the proposal is refused (the proposal would silently undo that change).
An item is checked before it is accepted: its path must lie inside the memory folder by its
real path, and its text must hold no secret (`memory/secrets.py`) — an item is a file anyone
with the fork's reach could have planted.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.fileio import atomic_write_text, file_lock
from wave_tui.config.records import record
from wave_tui.files.real_paths import is_strictly_inside
from wave_tui.memory.provenance import record_writes
from wave_tui.memory.runs import FileChange, read_or_none

INBOX_DIR = "inbox"
WORKTREE_TAG = "worktree:"  # an item staged by a fork inside that worktree (MR2)
InboxScope = Literal["auto", "team"]  # team: a file of `.wave/memory/`, for the user to commit


# req: MX8
class InboxError(Exception):
    """A clean, user-facing failure (unknown id, file changed since)."""


def review_enabled(settings: object) -> bool:
    """`autoMemoryReview` from the effective settings; False while the key does not exist yet."""
    return getattr(settings, "auto_memory_review", False) is True


@record
class PendingWrite:
    id: str
    path: Path  # the memory file it would write
    relative: str  # relative to the memory dir
    before: str | None
    after: str | None  # None: the proposal deletes the file
    created_at: float
    run_id: str | None = None
    scope: InboxScope = "auto"
    tag: str | None = None  # `worktree:NAME`: staged by a fork working in that worktree (MR2)

    def diff(self) -> str:
        return FileChange(self.path, self.before, self.after).diff()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": str(self.path),
            "relative": self.relative,
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.created_at)),
            "run_id": self.run_id,
            "scope": self.scope,
            "tag": self.tag,
            "diff": self.diff(),
            "before": self.before,
            "after": self.after,
        }


class Inbox:
    def __init__(
        self,
        project_dir: Path,
        memory_dir: Path,
        team_dir: Path | None = None,
        *,
        tag: str | None = None,
    ) -> None:
        self.folder = project_dir / INBOX_DIR
        self.memory_dir = memory_dir
        self.team_dir = team_dir  # where a team item may write (`.wave/memory/`); None: nowhere
        self.tag = tag  # given to every item this inbox stages (`worktree:NAME`, MR2)

    def _file(self, item_id: str) -> Path:
        return self.folder / f"{item_id}.json"

    def _relative(self, path: Path, folder: Path | None = None) -> str:
        try:
            return path.resolve().relative_to((folder or self.memory_dir).resolve()).as_posix()
        except ValueError:
            return path.name

    def items(self) -> list[PendingWrite]:
        """Every pending write, oldest first."""
        found: list[PendingWrite] = []
        for file in self.folder.glob("*.json"):
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
                before, run_id = data.get("before"), data.get("run_id")
                after = data["after"]  # None: a proposed deletion (consolidation)
                if not isinstance(data["path"], str) or not (
                    after is None or isinstance(after, str)
                ):
                    continue  # malformed: not an item (listed nowhere, accepted never)
                found.append(
                    PendingWrite(
                        id=file.stem,
                        path=Path(data["path"]),
                        relative=str(data["relative"]),
                        before=before if isinstance(before, str) else None,
                        after=after,
                        created_at=float(data["created_at"]),
                        run_id=run_id if isinstance(run_id, str) else None,
                        scope="team" if data.get("scope") == "team" else "auto",
                        tag=tag if isinstance(tag := data.get("tag"), str) else None,
                    )
                )
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                continue
        found.sort(key=lambda p: (p.created_at, p.id))
        return found

    def pending_for(self, path: Path) -> PendingWrite | None:
        """The newest proposal for this file (a later Edit in review mode builds on it)."""
        matches = [p for p in self.items() if p.path == path]
        return matches[-1] if matches else None

    def current_text(self, path: Path) -> str | None:
        """What the fork should see as the file's content: its pending proposal, else the file."""
        pending = self.pending_for(path)
        return pending.after if pending is not None else read_or_none(path)

    def propose(self, path: Path, after: str | None, run_id: str | None = None) -> PendingWrite:
        """Stage `after` for `path`; a second proposal for the same file in one run replaces the
        first (keeping its `before`), so the user reviews one diff per file."""
        return self._stage(path, after, run_id, self.memory_dir, "auto")

    # req: MM4
    def propose_team(
        self, path: Path, after: str, team_dir: Path, run_id: str | None = None
    ) -> PendingWrite:
        """Stage a file of the team folder (`.wave/memory/`): marked `team`; accepting writes it
        into the repository for the user to commit."""
        return self._stage(path, after, run_id, team_dir, "team")

    def _stage(
        self, path: Path, after: str | None, run_id: str | None, folder: Path, scope: InboxScope
    ) -> PendingWrite:
        previous = self.pending_for(path)
        if previous is not None and previous.run_id == run_id:
            item = PendingWrite(
                previous.id,
                path,
                previous.relative,
                previous.before,
                after,
                time.time(),
                run_id,
                scope,
                self.tag,
            )
        else:
            now = time.time()
            stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
            relative = self._relative(path, folder)
            marker = "team_" if scope == "team" else ""
            item_id = f"{stamp}-{int(now * 1000) % 1000:03d}-{marker}{relative.replace('/', '_')}"
            item = PendingWrite(
                item_id, path, relative, read_or_none(path), after, now, run_id, scope, self.tag
            )
        data = item.to_json()
        data["created_at"] = item.created_at
        atomic_write_text(self._file(item.id), json.dumps(data, indent=2))
        return item

    def get(self, item_id: str) -> PendingWrite:
        for item in self.items():
            if item.id == item_id:
                return item
        raise InboxError(f"no pending memory write with id '{item_id}' (see `wave memory inbox`)")

    # req: MR5
    def accept(self, item_id: str) -> PendingWrite:
        item = self.get(item_id)
        folder = self.team_dir if item.scope == "team" else self.memory_dir
        if (
            folder is None
            or not item.path.is_absolute()
            or not is_strictly_inside(item.path, folder)
        ):
            where = "the team memory folder" if item.scope == "team" else "the memory folder"
            raise InboxError(
                f"{item_id} not accepted: it would write {item.path}, outside {where} "
                "(the item was tampered with); reject it"
            )
        from wave_tui.memory.secrets import secret_refusal

        refusal = None if item.after is None else secret_refusal(item.after)
        if refusal is not None:
            raise InboxError(f"{item_id} not accepted. {refusal}")
        with file_lock(item.path):
            if read_or_none(item.path) != item.before:
                raise InboxError(
                    f"{item.relative} changed since this write was proposed; "
                    f"reject {item_id} and let the next extraction propose it again"
                )
            if item.after is None:
                item.path.unlink(missing_ok=True)
            else:
                atomic_write_text(item.path, item.after)
        if item.after is not None:  # who wrote it, for `wave memory show` (MR5)
            record_writes(self.folder.parent, [item.path], "inbox", run=item.run_id)
        self._file(item_id).unlink(missing_ok=True)
        return item

    def reject(self, item_id: str) -> PendingWrite:
        item = self.get(item_id)
        self._file(item_id).unlink(missing_ok=True)
        return item
