"""Consolidation of the auto-memory folder in one pass (MM5): duplicates merged, memories that
cite missing or changed code removed, MEMORY.md rewritten under its caps.

`plan_consolidation` works out the new content of every file it would touch (None = delete),
asking the fast model at most once — to merge each duplicate group and, when the index is still
over its caps after the mechanical clean-up, to shorten it. `apply_plan` writes the plan as a
recorded run (its diff, `wave memory revert`), or stages it in the review inbox.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wave_tui.config.fileio import atomic_write_text, file_lock
from wave_tui.config.paths import MEMORY_INDEX_FILENAME, WavePaths
from wave_tui.config.records import record
from wave_tui.files.real_paths import is_strictly_inside
from wave_tui.memory.catalog import MemoryEntry
from wave_tui.memory.conflicts import ChatClient
from wave_tui.memory.duplicates import near_duplicates
from wave_tui.memory.inbox import Inbox
from wave_tui.memory.index import INDEX_MAX_CHARS, INDEX_MAX_LINES
from wave_tui.memory.runs import ChangeRecorder, FileChange, Run, read_or_none, record_run

CONSOLIDATION_LABEL = "consolidate"
MERGE_SYSTEM = (
    "You tidy a coding agent's memory files. Merge memories that say the same thing into one, "
    "keeping every distinct fact once, and the frontmatter (name, description, type) of the "
    "first. Shorten an index by merging or dropping lines, never inventing any."
)
_LINK_RE = re.compile(r"\]\(([^)\s]+\.md)\)")


@record
class Step:
    path: Path
    after: str | None  # None: the file is deleted
    why: str


# req: MM5
@record
class ConsolidationPlan:
    steps: list[Step]

    def changes(self) -> list[FileChange]:
        return [FileChange(s.path, read_or_none(s.path), s.after) for s in self.steps]

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes())

    def summary(self) -> list[str]:
        return [f"{step.path.name}: {step.why}" for step in self.steps]


def _relative(entry: MemoryEntry) -> str:
    return entry.id.split(":", 1)[1]


def duplicate_groups(entries: Sequence[MemoryEntry]) -> list[tuple[MemoryEntry, MemoryEntry]]:
    """(kept, merged away) for auto memories that repeat each other; the newer file is kept."""
    auto = [e for e in entries if e.scope == "auto"]
    pairs: list[tuple[MemoryEntry, MemoryEntry]] = []
    used: set[str] = set()
    for later, dup in near_duplicates(auto):
        earlier = dup.entry
        if later.id in used or earlier.id in used:
            continue
        newer_first = (later.age_days or 0) <= (earlier.age_days or 0)
        kept, gone = (later, earlier) if newer_first else (earlier, later)
        pairs.append((kept, gone))
        used.update((kept.id, gone.id))
    return pairs


def _fallback_merge(kept: str, gone: str) -> str:
    """Without a model: the kept file, plus each line of the other that it lacks."""
    have = {line.strip() for line in kept.splitlines()}
    body = gone.split("\n---\n", 1)[-1] if gone.startswith("---\n") else gone
    extra = [ln for ln in body.splitlines() if ln.strip() and ln.strip() not in have]
    return kept.rstrip("\n") + ("\n" + "\n".join(extra) if extra else "") + "\n"


def _clean_index(text: str, removed: set[str], folder: Path) -> str:
    """The index without lines for removed or missing files, and without repeated lines."""
    seen: set[str] = set()
    kept: list[str] = []
    for line in text.splitlines():
        links = _LINK_RE.findall(line)
        if any(link.removeprefix("./") in removed for link in links):
            continue
        if any(not (folder / link).is_file() for link in links):
            continue
        key = " ".join(line.split())
        if key and key in seen:
            continue
        seen.add(key)
        kept.append(line)
    return "\n".join(kept).strip("\n") + "\n" if kept else ""


def over_caps(text: str) -> bool:
    return len(text.splitlines()) > INDEX_MAX_LINES or len(text) > INDEX_MAX_CHARS


def _under_caps(text: str) -> str:
    lines = text.splitlines()[:INDEX_MAX_LINES]
    out = "\n".join(lines)
    if len(out) > INDEX_MAX_CHARS:
        out = out[: out.rfind("\n", 0, INDEX_MAX_CHARS)]
    return out.rstrip("\n") + "\n"


def merge_request(
    model: str, groups: Sequence[tuple[MemoryEntry, MemoryEntry]], index: str | None
) -> dict[str, Any]:
    parts = [
        f"Group {n}:\n<first>\n{kept.body}\n</first>\n<second>\n{gone.body}\n</second>"
        for n, (kept, gone) in enumerate(groups, start=1)
    ]
    if index is not None:
        parts.append(
            f"Index (MEMORY.md), to shorten to at most {INDEX_MAX_LINES} lines:\n<index>\n"
            f"{index}\n</index>"
        )
    ask = (
        "\n\n".join(parts)
        + '\n\nAnswer with one JSON object only: {"merged": [{"group": N, "content": "the '
        'whole merged file"}], "index": "the shortened index, or null"}.'
    )
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": MERGE_SYSTEM},
            {"role": "user", "content": ask},
        ],
        "temperature": 0,
        "max_tokens": 8000,
    }


def _parse_answer(answer: str) -> tuple[dict[int, str], str | None]:
    start, end = answer.find("{"), answer.rfind("}")
    try:
        data = json.loads(answer[start : end + 1]) if 0 <= start < end else {}
    except ValueError:
        data = {}
    merged: dict[int, str] = {}
    for item in data.get("merged") or [] if isinstance(data, dict) else []:
        if isinstance(item, dict) and isinstance(item.get("group"), int):
            content = item.get("content")
            if isinstance(content, str) and content.strip():
                merged[item["group"]] = content if content.endswith("\n") else content + "\n"
    index = data.get("index") if isinstance(data, dict) else None
    return merged, index if isinstance(index, str) and index.strip() else None


# req: MM5
async def plan_consolidation(
    entries: Sequence[MemoryEntry], paths: WavePaths, client: ChatClient | None, model: str | None
) -> ConsolidationPlan:
    """What one pass would change. `entries` come with their missing and changed citations."""
    folder = paths.memory_dir
    # A file that is a link, or leads out of the memory folder, is never written through.
    entries = [e for e in entries if _stays_inside(e.path, folder)]
    groups = duplicate_groups(entries)
    merged_away = {gone.id for _kept, gone in groups}
    outdated = [
        e
        for e in entries
        if e.scope == "auto" and e.id not in merged_away and (e.missing_refs or e.changed_refs)
    ]
    removed = {_relative(gone) for _k, gone in groups} | {_relative(e) for e in outdated}
    index_path = folder / MEMORY_INDEX_FILENAME
    index_before = read_or_none(index_path) if _stays_inside(index_path, folder) else None
    index = _clean_index(index_before, removed, folder) if index_before is not None else None
    ask_index = index if index is not None and over_caps(index) else None
    merged: dict[int, str] = {}
    shortened: str | None = None
    if client is not None and model and (groups or ask_index is not None):
        reply = await client.stream_chat(merge_request(model, groups, ask_index))
        merged, shortened = _parse_answer(str(getattr(reply, "content", "") or ""))
    steps: list[Step] = []
    for n, (kept, gone) in enumerate(groups, start=1):
        content = merged.get(n) or _fallback_merge(kept.body, gone.body)
        steps.append(Step(kept.path, content, f"merged with its duplicate {gone.path.name}"))
        steps.append(Step(gone.path, None, f"repeats {kept.path.name}; merged into it"))
    for entry in outdated:
        cited = [*entry.missing_refs, *(c.ref for c in entry.changed_refs)]
        steps.append(Step(entry.path, None, f"cites missing or changed code: {', '.join(cited)}"))
    if index is not None:
        new_index = shortened if shortened is not None else index
        if over_caps(new_index):
            new_index = _under_caps(new_index)
        if new_index != index_before:
            steps.append(Step(index_path, new_index, "rewritten under its caps"))
    return ConsolidationPlan(steps)


# req: HR9
def _stays_inside(path: Path, folder: Path) -> bool:
    """`path` is no link and really lies inside `folder` (itself reached through no link out)."""
    return not path.is_symlink() and is_strictly_inside(
        os.path.realpath(path), os.path.realpath(folder)
    )


# req: MM5
def apply_plan(plan: ConsolidationPlan, paths: WavePaths) -> Run | None:
    """Write the plan as one recorded run (revertible); None when there was nothing to do."""
    if not plan.steps:
        return None
    started = time.time()
    recorder = ChangeRecorder()
    for step in plan.steps:
        with file_lock(step.path):
            recorder.touch(step.path)
            if step.after is None:
                step.path.unlink(missing_ok=True)
            else:
                atomic_write_text(step.path, step.after)
    return record_run(paths.project_dir, "consolidation", recorder, started, CONSOLIDATION_LABEL)


def stage_plan(plan: ConsolidationPlan, paths: WavePaths) -> list[str]:
    """Review mode: each step waits in the inbox; returns the item ids."""
    inbox = Inbox(paths.project_dir, paths.memory_dir, paths.team_memory_dir)
    run_id = f"consolidate-{int(time.time() * 1000)}"
    return [inbox.propose(step.path, step.after, run_id).id for step in plan.steps]
