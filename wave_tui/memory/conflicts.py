"""Contradictions among AGENTS.md lines, rules and memories (MM2): cheap candidates, one judge.

Candidates come from an inverted index, never from all pairs: two entries are a candidate when
they cite the same file or symbol, or share at least `MIN_SHARED_WORDS` topic words (words of
four letters or more, not stop words, and not so common across the memory that they say
nothing). The best-scored `MAX_PAIRS` go to the fast model in ONE request, which answers with the
pairs that contradict. The result is saved beside the memory folder with a hash of each side's
text: a conflict stays open until one side is edited or deleted, so the browser's `conflict`
filter and the extraction fork see it without asking the model again.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from wave_tui.config.fileio import atomic_write_text
from wave_tui.config.records import record
from wave_tui.memory.fast_verdict import ChatClient, answer_of, json_in, verdict_request
from wave_tui.memory.references import find_references

MAX_PAIRS = 40
MIN_SHARED_WORDS = 2
COMMON_SHARE = 0.2  # a word in more than this share of entries names no topic
TEXT_CHARS = 600  # of each side, in the request
_WORD_RE = re.compile(r"[a-z][a-z0-9_]{3,}")
_STOP = frozenset(
    [
        "this",
        "that",
        "with",
        "from",
        "have",
        "will",
        "when",
        "then",
        "than",
        "they",
        "them",
        "their",
        "there",
        "here",
        "what",
        "which",
        "while",
        "where",
        "into",
        "only",
        "also",
        "must",
        "should",
        "would",
        "could",
        "always",
        "never",
        "every",
        "each",
        "other",
        "about",
        "after",
        "before",
        "over",
        "under",
        "more",
        "most",
        "some",
        "such",
        "very",
        "just",
        "like",
        "make",
        "made",
        "uses",
        "using",
        "used",
        "file",
        "files",
        "code",
        "project",
        "user",
        "memory",
        "note",
        "notes",
    ]
)
JUDGE_SYSTEM = (
    "You check a project's saved instructions and memories for contradictions. Two statements "
    "contradict when following one means breaking the other (different tools, values, rules or "
    "facts for the same thing). Statements about different things, or one more detailed than "
    "the other, do not contradict."
)


@record
class Side:
    id: str
    scope: str
    text: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "scope": self.scope, "text": self.text}


# req: MM2
@record
class Conflict:
    a: Side
    b: Side
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a.to_json(), "b": self.b.to_json(), "reason": self.reason}


def _keys(text: str) -> tuple[set[str], set[str]]:
    """(topic words, cited files and symbols) of a text."""
    words = {w for w in _WORD_RE.findall(text.casefold()) if w not in _STOP}
    cited = {r.path or r.symbol or r.text for r in find_references(text)}
    return words, {c for c in cited if c}


# req: MM2
def candidate_pairs(sides: Sequence[Side], limit: int = MAX_PAIRS) -> list[tuple[Side, Side]]:
    """The pairs worth asking about, best first: a shared citation counts most, then shared
    topic words. Pairs from one inverted index: cost grows with shared keys, not n²."""
    words_of: list[set[str]] = []
    by_word: dict[str, list[int]] = defaultdict(list)
    by_ref: dict[str, list[int]] = defaultdict(list)
    for n, side in enumerate(sides):
        words, refs = _keys(side.text)
        words_of.append(words)
        for word in words:
            by_word[word].append(n)
        for ref in refs:
            by_ref[ref].append(n)
    common = max(2, int(len(sides) * COMMON_SHARE))
    scores: dict[tuple[int, int], float] = defaultdict(float)
    for index, weight in ((by_ref, 3.0), (by_word, 1.0)):
        for members in index.values():
            if len(members) < 2 or (weight == 1.0 and len(members) > common):
                continue
            for i, a in enumerate(members):
                for b in members[i + 1 :]:
                    scores[(a, b)] += weight
    chosen = [
        (score, pair)
        for pair, score in scores.items()
        if score >= MIN_SHARED_WORDS and sides[pair[0]].text.strip() != sides[pair[1]].text.strip()
    ]
    chosen.sort(key=lambda item: (-item[0], item[1]))
    return [(sides[a], sides[b]) for _score, (a, b) in chosen[:limit]]


def judge_request(model: str, pairs: Sequence[tuple[Side, Side]]) -> dict[str, Any]:
    """The one batched request for the fast model."""
    blocks = [
        f"Pair {n}:\nA ({a.id}): {a.text[:TEXT_CHARS]}\nB ({b.id}): {b.text[:TEXT_CHARS]}"
        for n, (a, b) in enumerate(pairs, start=1)
    ]
    ask = (
        "Which of these pairs contradict each other?\n\n"
        + "\n\n".join(blocks)
        + '\n\nAnswer with a JSON array only, one object per contradicting pair: {"pair": N, '
        '"reason": "one short sentence"}. Answer [] when none contradict.'
    )
    return verdict_request(model, JUDGE_SYSTEM, ask, max_tokens=2000)


def parse_verdicts(answer: str, pairs: Sequence[tuple[Side, Side]]) -> list[Conflict]:
    """The contradicting pairs the model named; anything else in its answer is ignored."""
    data = json_in(answer, "array")
    found: dict[int, Conflict] = {}
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict):
            continue
        n = item.get("pair")
        if isinstance(n, int) and 1 <= n <= len(pairs) and n not in found:
            a, b = pairs[n - 1]
            found[n] = Conflict(a, b, " ".join(str(item.get("reason") or "contradicts").split()))
    return [found[n] for n in sorted(found)]


# req: MM2
async def judge(
    client: ChatClient, model: str, pairs: Sequence[tuple[Side, Side]]
) -> list[Conflict]:
    if not pairs:
        return []
    return parse_verdicts(await answer_of(client, judge_request(model, pairs)), pairs)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def save_conflicts(path: Path, conflicts: Iterable[Conflict]) -> None:
    data = [{**c.to_json(), "a_sha": _sha(c.a.text), "b_sha": _sha(c.b.text)} for c in conflicts]
    atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=1))


def open_conflicts(path: Path, current: dict[str, str]) -> list[Conflict]:
    """The saved conflicts whose two sides still read as they did (`current`: id -> text)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    found: list[Conflict] = []
    for item in data if isinstance(data, list) else []:
        try:
            a, b = item["a"], item["b"]
            if current.get(a["id"]) is None or current.get(b["id"]) is None:
                continue
            if _sha(current[a["id"]]) != item["a_sha"] or _sha(current[b["id"]]) != item["b_sha"]:
                continue
            found.append(
                Conflict(
                    Side(a["id"], a["scope"], a["text"]),
                    Side(b["id"], b["scope"], b["text"]),
                    item["reason"],
                )
            )
        except (KeyError, TypeError):
            continue
    return found


CONFLICT_NOTE = (
    "## Open contradictions\n\n"
    "`wave memory check` found saved instructions or memories that contradict each other:\n"
    "{lines}\n\n"
    "Do not write a memory that repeats either side of one of these; when the conversation "
    "settles which side is right, update or remove the memory that is wrong."
)


def conflict_note(conflicts: Sequence[Conflict]) -> str | None:
    """The paragraph the extraction fork reads before it writes (MM2)."""
    if not conflicts:
        return None
    lines = "\n".join(f"- {c.a.id} vs {c.b.id}: {c.reason}" for c in conflicts)
    return CONFLICT_NOTE.format(lines=lines)
