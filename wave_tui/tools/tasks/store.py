"""One task list on disk: `~/.wave/tasks/<task-list-id>/tasks.json`, locked and atomic (TK2).

Several sessions may share a list (`WAVE_TASK_LIST_ID`): every change is a read-modify-write
under the cross-process file lock, run in a worker thread so the event loop never waits on it.
Listeners hear about every change this process makes (the app's task panel).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, field, replace
from pathlib import Path
from typing import Any, Literal, cast, get_args

from wave_tui.config.fileio import locked_update
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record

TaskStatus = Literal["pending", "in_progress", "completed", "deleted"]
TASK_STATUSES: tuple[TaskStatus, ...] = get_args(TaskStatus)
OPEN_STATUSES: frozenset[TaskStatus] = frozenset({"pending", "in_progress"})
TASK_LIST_ENV = "WAVE_TASK_LIST_ID"
TASKS_FILE = "tasks.json"


@record
class Task:
    id: str
    subject: str
    description: str = ""
    active_form: str = ""
    status: TaskStatus = "pending"
    blocks: tuple[str, ...] = ()
    blocked_by: tuple[str, ...] = ()

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        return {
            "id": self.id,
            "subject": self.subject,
            "description": self.description,
            "activeForm": self.active_form,
            "status": self.status,
            "blocks": list(data["blocks"]),
            "blockedBy": list(data["blocked_by"]),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Task | None:
        status = data.get("status", "pending")
        if not isinstance(data.get("id"), str) or status not in TASK_STATUSES:
            return None
        return cls(
            id=data["id"],
            subject=str(data.get("subject", "")),
            description=str(data.get("description", "")),
            active_form=str(data.get("activeForm", "")),
            status=cast(TaskStatus, status),
            blocks=tuple(str(x) for x in data.get("blocks", ()) if isinstance(x, str | int)),
            blocked_by=tuple(str(x) for x in data.get("blockedBy", ()) if isinstance(x, str | int)),
        )


@record
class TaskPatch:
    """What `TaskUpdate` changes; None leaves a field as it is."""

    status: TaskStatus | None = None
    subject: str | None = None
    description: str | None = None
    active_form: str | None = None
    add_blocks: tuple[str, ...] = ()
    add_blocked_by: tuple[str, ...] = ()


class TaskNotFound(LookupError):
    pass


@record(frozen=False)
class _Doc:
    next_id: int = 1
    tasks: list[Task] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str | None) -> _Doc:
        if not text:
            return cls()
        try:
            raw = json.loads(text)
        except json.JSONDecodeError:
            return cls()  # a damaged file is rebuilt rather than blocking the tools forever
        if not isinstance(raw, dict):
            return cls()
        tasks = [
            t for t in (Task.from_json(x) for x in raw.get("tasks", []) if isinstance(x, dict)) if t
        ]
        next_id = raw.get("nextId")
        if not isinstance(next_id, int):
            next_id = 1 + max((int(t.id) for t in tasks if t.id.isdigit()), default=0)
        return cls(next_id=next_id, tasks=tasks)

    def dump(self) -> str:
        body = {"nextId": self.next_id, "tasks": [t.to_json() for t in self.tasks]}
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"

    def index(self, task_id: str) -> int:
        for i, task in enumerate(self.tasks):
            if task.id == task_id:
                return i
        raise TaskNotFound(task_id)


def default_list_id(session_id: str, env: Mapping[str, str] | None = None) -> str:
    """`WAVE_TASK_LIST_ID` when set (shares a list between sessions), else the session id."""
    value = (os.environ if env is None else env).get(TASK_LIST_ENV, "").strip()
    return value or session_id


TaskListener = Callable[[list["Task"]], None]


# req: TK2
class TaskStore:
    def __init__(self, paths: WavePaths, list_id: str) -> None:
        self.paths = paths
        self.list_id = list_id
        self._listeners: list[TaskListener] = []

    @property
    def file(self) -> Path:
        return self.paths.task_list_dir(self.list_id) / TASKS_FILE

    def switch(self, list_id: str) -> None:
        """Point at another list (a new session after /clear without WAVE_TASK_LIST_ID)."""
        self.list_id = list_id
        self._emit(self.read_now())

    def subscribe(self, listener: TaskListener) -> Callable[[], None]:
        """Called with the whole list after every change made through this store."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, tasks: list[Task]) -> None:
        for listener in list(self._listeners):
            listener(tasks)

    # -- reading --------------------------------------------------------------------------------
    def read_now(self) -> list[Task]:
        """The list as on disk, deleted tasks left out. No lock: writes are atomic replaces."""
        try:
            text = self.file.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return []
        return _live(_Doc.parse(text).tasks)

    async def all_tasks(self) -> list[Task]:
        return await asyncio.to_thread(self.read_now)

    async def get(self, task_id: str) -> Task:
        for task in await self.all_tasks():
            if task.id == task_id:
                return task
        raise TaskNotFound(task_id)

    # -- writing --------------------------------------------------------------------------------
    def _change(self, change: Callable[[_Doc], Task]) -> tuple[Task, list[Task]]:
        out: list[Task] = []

        def update(text: str | None) -> str:
            doc = _Doc.parse(text)
            out.append(change(doc))
            return doc.dump()

        locked_update(self.file, update)
        return out[0], self.read_now()

    async def _apply(self, change: Callable[[_Doc], Task]) -> Task:
        task, tasks = await asyncio.to_thread(self._change, change)
        self._emit(tasks)
        return task

    async def create(self, subject: str, description: str = "", active_form: str = "") -> Task:
        def change(doc: _Doc) -> Task:
            task = Task(str(doc.next_id), subject, description, active_form)
            doc.next_id += 1
            doc.tasks.append(task)
            return task

        return await self._apply(change)

    async def update(self, task_id: str, patch: TaskPatch) -> Task:
        def change(doc: _Doc) -> Task:
            i = doc.index(task_id)
            known = {t.id for t in doc.tasks if t.status != "deleted"}
            for other_id in (*patch.add_blocks, *patch.add_blocked_by):
                if other_id not in known:
                    raise TaskNotFound(other_id)
                if other_id == task_id:
                    raise ValueError(f"task {task_id} cannot block itself")
            task = doc.tasks[i]
            task = replace(
                task,
                status=patch.status or task.status,
                subject=task.subject if patch.subject is None else patch.subject,
                description=task.description if patch.description is None else patch.description,
                active_form=task.active_form if patch.active_form is None else patch.active_form,
                blocks=_merge(task.blocks, patch.add_blocks),
                blocked_by=_merge(task.blocked_by, patch.add_blocked_by),
            )
            doc.tasks[i] = task
            # Dependencies are kept symmetric: A blocks B exactly when B is blocked by A.
            for j, other in enumerate(doc.tasks):
                if other.id in patch.add_blocks:
                    doc.tasks[j] = replace(other, blocked_by=_merge(other.blocked_by, (task_id,)))
                if other.id in patch.add_blocked_by:
                    doc.tasks[j] = replace(other, blocks=_merge(other.blocks, (task_id,)))
            if task.status == "deleted":
                doc.tasks = _unlinked(doc.tasks, task_id)
                task = doc.tasks[i]
            return task

        return await self._apply(change)


# req: TK2
def _unlinked(tasks: list[Task], gone: str) -> list[Task]:
    """A deleted task blocks nothing and waits for nothing: its links go on both sides."""
    out = []
    for task in tasks:
        if task.id == gone:
            out.append(replace(task, blocks=(), blocked_by=()))
        elif gone in task.blocks or gone in task.blocked_by:
            blocks = tuple(b for b in task.blocks if b != gone)
            blocked_by = tuple(b for b in task.blocked_by if b != gone)
            out.append(replace(task, blocks=blocks, blocked_by=blocked_by))
        else:
            out.append(task)
    return out


def _live(tasks: list[Task]) -> list[Task]:
    """The tasks not deleted, with no link to a deleted or missing task (a list written before
    deletions unlinked, or edited by hand)."""
    live = {t.id for t in tasks if t.status != "deleted"}
    out = []
    for task in tasks:
        if task.id not in live:
            continue
        blocks = tuple(b for b in task.blocks if b in live)
        blocked_by = tuple(b for b in task.blocked_by if b in live)
        if (blocks, blocked_by) != (task.blocks, task.blocked_by):
            task = replace(task, blocks=blocks, blocked_by=blocked_by)
        out.append(task)
    return out


def _merge(current: tuple[str, ...], extra: tuple[str, ...]) -> tuple[str, ...]:
    return current + tuple(x for x in dict.fromkeys(extra) if x not in current)
