"""`wave memory runs|revert|inbox|accept|reject|search` and `list --duplicates` (MX7–MX10)."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any, TextIO

from wave_tui.config.paths import WavePaths
from wave_tui.session.facade import MemoryReview, near_duplicates
from wave_tui.session.types import MemoryEntry, ReviewError

__all__ = [
    "REVIEW_ACTIONS",
    "ReviewError",
    "add_review_parsers",
    "duplicates_json",
    "format_duplicates",
    "run_review_action",
]
REVIEW_ACTIONS = ("runs", "revert", "inbox", "accept", "reject", "search")


def add_review_parsers(sub: argparse._SubParsersAction[Any]) -> None:
    runs = sub.add_parser("runs", help="list extraction runs with the files each wrote")
    runs.add_argument("--json", action="store_true", help="print a JSON array (with diffs)")
    runs.add_argument("--diff", action="store_true", help="print each run's diff")
    revert = sub.add_parser("revert", help="undo what an extraction run changed")
    revert.add_argument("run_id", metavar="RUN_ID")
    inbox = sub.add_parser("inbox", help="memory writes waiting for review (autoMemoryReview)")
    inbox.add_argument("--json", action="store_true", help="print a JSON array")
    sub.add_parser("accept", help="write a pending memory").add_argument("id", metavar="ID")
    sub.add_parser("reject", help="drop a pending memory").add_argument("id", metavar="ID")
    search = sub.add_parser("search", help="entries whose title or content matches TEXT")
    search.add_argument("text", nargs="+", metavar="TEXT")
    search.add_argument("--json", action="store_true", help="print a JSON array")


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


def run_review_action(args: argparse.Namespace, paths: WavePaths, out: TextIO) -> int:
    """One of REVIEW_ACTIONS. Raises RunError / InboxError for clean one-line failures."""
    review = MemoryReview(paths)
    if args.action == "runs":
        runs = review.runs()
        if args.json:
            print(json.dumps([r.to_json() for r in runs], ensure_ascii=False, indent=2), file=out)
            return 0
        if not runs:
            print("No extraction runs recorded.", file=out)
        for run in runs:
            turn = f"turn {run.turn}" if run.turn is not None else "turn ?"
            state = f" (reverted by {run.reverted_by})" if run.reverted_by else ""
            label = f"revert of {run.reverts}" if run.kind == "revert" else turn
            files = ", ".join(c.path.name for c in run.changes) or "no files written"
            print(f"{run.id}  {_when(run.started_at)}  {label}  {files}{state}", file=out)
            if args.diff and run.changes:
                print(run.diff().rstrip("\n"), file=out)
        return 0
    if args.action == "revert":
        result = review.revert(args.run_id)
        for path in result.restored:
            print(f"restored {path}", file=out)
        for skipped in result.skipped:
            print(f"left alone: {skipped}", file=out)
        print(f"recorded as {result.run.id}", file=out)
        return 0
    if args.action == "inbox":
        items = review.inbox()
        if args.json:
            print(json.dumps([i.to_json() for i in items], ensure_ascii=False, indent=2), file=out)
            return 0
        if not items:
            print("No memory writes waiting for review.", file=out)
        for item in items:
            new = " (new file)" if item.before is None else ""
            team = (
                " [team: .wave/memory/, commit it after accepting]" if item.scope == "team" else ""
            )
            tag = f" [{item.tag}]" if item.tag else ""  # staged in a worktree (MR2)
            print(f"{item.id}  {_when(item.created_at)}  {item.relative}{new}{team}{tag}", file=out)
            print(item.diff().rstrip("\n"), file=out)
        return 0
    if args.action in ("accept", "reject"):
        item = review.accept(args.id) if args.action == "accept" else review.reject(args.id)
        verb = f"wrote {item.path}" if args.action == "accept" else f"dropped {item.relative}"
        print(f"{args.action}ed {item.id}: {verb}", file=out)
        return 0
    found = review.search(" ".join(args.text))
    if args.json:
        print(json.dumps([e.to_json() for e in found], ensure_ascii=False, indent=2), file=out)
    else:
        for entry in found:
            print(f"{entry.id}  {' '.join(entry.title.split())[:60]}", file=out)
        if not found:
            print("No matching memory entries.", file=out)
    return 0


def format_duplicates(entries: list[MemoryEntry]) -> str:
    pairs = near_duplicates(entries)
    if not pairs:
        return "No duplicate memory entries."
    return "\n".join(f"{entry.id} {dup.describe()}" for entry, dup in pairs)


def duplicates_json(entries: list[MemoryEntry]) -> str:
    data = [
        {"id": entry.id, "duplicate_of": dup.entry.id, "ratio": round(dup.ratio, 3)}
        for entry, dup in near_duplicates(entries)
    ]
    return json.dumps(data, ensure_ascii=False, indent=2)
