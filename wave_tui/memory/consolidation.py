"""Consolidation of the auto-memory folder in one pass (MM5): duplicates merged, memories that
cite missing or changed code removed, MEMORY.md rewritten under its caps.

`plan_consolidation` works out the new content of every file it would touch (None = delete).
Alike text makes a merge candidate; the fast model decides, in one request for every candidate,
whether the two hold the same fact and merges those (without a model only memories of the same
words merge). A merge folds the merged-away file's index line into the kept file's, so the index
still names both. A second request shortens the index when it is still over its caps after the
mechanical clean-up. `apply_plan` writes the plan as a
recorded run (its diff, `wave memory revert`), or stages it in the review inbox.
"""

from __future__ import annotations

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
from wave_tui.memory.duplicates import near_duplicates
from wave_tui.memory.fast_verdict import ChatClient, answer_of, json_in, verdict_request
from wave_tui.memory.inbox import Inbox
from wave_tui.memory.index import INDEX_MAX_CHARS, INDEX_MAX_LINES
from wave_tui.memory.provenance import record_writes
from wave_tui.memory.runs import ChangeRecorder, FileChange, Run, read_or_none, record_run

CONSOLIDATION_LABEL = "consolidate"
MERGE_SYSTEM = (
    "You tidy a coding agent's memory files. Each group holds two memories whose text is alike; "
    "decide whether they hold the same fact. Alike text is not the same fact: memories that "
    "differ in any value (a number, a port, a name, a path, a version) hold different facts and "
    "are never merged. Merge only memories that say the same thing, into one that keeps every "
    "distinct detail once and the frontmatter (name, description, type) of the first. Shorten "
    "an index by merging or dropping lines, never inventing any."
)
_LINK_RE = re.compile(r"\]\(([^)\s]+\.md)\)")
_WORD_RE = re.compile(r"\w+")
_ENTRY_RE = re.compile(r"^\s*[-*]\s*\[(?P<title>[^\]]*)\]\((?P<link>[^)\s]+\.md)\)(?P<rest>.*)$")


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
    """Merge candidates: (kept, merged away) for auto memories whose text is alike; the newer file
    would be kept. Alike text only makes a candidate: whether two hold the same fact is the fast
    model's call (`plan_consolidation`)."""
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


def _words_of(text: str) -> str:
    body = text.split("\n---\n", 1)[-1] if text.startswith("---\n") else text
    return " ".join(_WORD_RE.findall(body.lower()))


def _same_text(kept: MemoryEntry, gone: MemoryEntry) -> bool:
    """The one case decided without a model: the bodies are the same words in the same order
    (case and punctuation aside); a single differing word or number is the model's call."""
    return _words_of(kept.body) == _words_of(gone.body)


# req: MM5
def _index_after_merges(text: str, merges: Sequence[tuple[str, str]]) -> str:
    """The index with each merged-away file's line folded into the kept file's line, so the
    index still says what it said of both; a kept file without a line takes the other's line."""
    lines = text.splitlines()
    for kept, gone in merges:
        gone_at = _line_linking(lines, gone)
        if gone_at is None:
            continue
        match = _ENTRY_RE.match(lines[gone_at])
        kept_at = _line_linking(lines, kept)
        if match is None or kept_at is None:
            lines[gone_at] = lines[gone_at].replace(f"]({gone})", f"]({kept})", 1)
            continue
        said = match["rest"].strip().lstrip("—-–:").strip() or match["title"].strip()
        if said and said.lower() not in lines[kept_at].lower():
            lines[kept_at] = f"{lines[kept_at].rstrip()}; {said}"
        del lines[gone_at]
    return "\n".join(lines) + ("\n" if lines else "")


def _line_linking(lines: list[str], relative: str) -> int | None:
    for n, line in enumerate(lines):
        if any(link.removeprefix("./") == relative for link in _LINK_RE.findall(line)):
            return n
    return None


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
        + '\n\nAnswer with one JSON object only: {"merged": [{"group": N, "same": true or '
        'false, "content": "the whole merged file, or null when not the same fact"}], "index": '
        '"the shortened index, or null"}. List every group; a group you leave out is not merged.'
    )
    return verdict_request(model, MERGE_SYSTEM, ask, max_tokens=8000)


def _parse_answer(answer: str) -> tuple[dict[int, str], str | None]:
    """Merged content per group the model judged the same fact; the shortened index."""
    data = json_in(answer, "object")
    merged: dict[int, str] = {}
    for item in data.get("merged") or [] if isinstance(data, dict) else []:
        if isinstance(item, dict) and isinstance(item.get("group"), int):
            if item.get("same") is False:
                continue
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
    candidates = duplicate_groups(entries)
    same = [(kept, gone) for kept, gone in candidates if _same_text(kept, gone)]
    asked = [pair for pair in candidates if pair not in same]
    index_path = folder / MEMORY_INDEX_FILENAME
    index_before = read_or_none(index_path) if _stays_inside(index_path, folder) else None
    merged: dict[int, str] = {}
    shortened: str | None = None
    if client is not None and model and asked:
        answer = await answer_of(client, merge_request(model, asked, None))
        merged, _ignored = _parse_answer(answer)
    merges = [(kept, gone, kept.body) for kept, gone in same]
    merges += [(k, g, merged[n]) for n, (k, g) in enumerate(asked, start=1) if n in merged]
    merged_away = {gone.id for _k, gone, _c in merges}
    outdated = [
        e
        for e in entries
        if e.scope == "auto" and e.id not in merged_away and (e.missing_refs or e.changed_refs)
    ]
    removed = {_relative(e) for e in outdated}
    index: str | None = None
    if index_before is not None:
        folded = _index_after_merges(
            index_before, [(_relative(k), _relative(g)) for k, g, _c in merges]
        )
        index = _clean_index(folded, removed | {_relative(g) for _k, g, _c in merges}, folder)
    if client is not None and model and index is not None and over_caps(index):
        answer = await answer_of(client, merge_request(model, [], index))
        _none, shortened = _parse_answer(answer)
    steps: list[Step] = []
    for kept, gone, content in merges:
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
    run = record_run(paths.project_dir, "consolidation", recorder, started, CONSOLIDATION_LABEL)
    written = [s.path for s in plan.steps if s.after is not None]
    record_writes(paths.project_dir, written, "consolidation", run=run.id)
    return run


def stage_plan(plan: ConsolidationPlan, paths: WavePaths) -> list[str]:
    """Review mode: each step waits in the inbox; returns the item ids."""
    inbox = Inbox(paths.project_dir, paths.memory_dir, paths.team_memory_dir)
    run_id = f"consolidate-{int(time.time() * 1000)}"
    return [inbox.propose(step.path, step.after, run_id).id for step in plan.steps]
