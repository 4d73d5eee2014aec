"""Verified citations: a memory citing `path:line` or `path#symbol` keeps a hash of the cited
text, and is marked `citation changed` once that text is different (MM1).

The pin is taken when the memory's text is first seen as it now reads (a write, an edit by the
user, an accepted proposal): the store is keyed by a hash of the memory's text, so a memory that
is rewritten is pinned afresh to the code as it is then, and item positions in AGENTS.md do not
matter. Checks are event-driven: each pin keeps the cited file's stat when it was last verified,
and a file whose stat is unchanged is not read again; only a changed file is read and hashed.
The store is one JSON file beside the memory folder (`WavePaths.citations_file`), replaced
atomically under its lock; in a process it is parsed again only when its own stat changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from wave_tui.config.fileio import atomic_write_text, file_lock
from wave_tui.config.records import record
from wave_tui.memory.references import ProjectIndex, Reference, find_references

STORE_VERSION = 1
_KEYS_MAX = 100_000
CITED_TEXT_MAX = 2000  # the old text kept for display; the hash covers the whole cited text
BLOCK_MAX_LINES = 200  # a symbol's definition block is cut here (hash and text alike)
_DEF_WORDS = r"(?:async\s+def|def|class|function|fn|func|struct|enum|interface|type|trait|impl)"

Stat = list[int]  # size, mtime_ns, inode: a list, as the JSON store holds it


# req: MM1
@record
class ChangedRef:
    """A cited line or symbol whose text is no longer what it was when the memory was written."""

    ref: str  # as cited: `src/a.py:3`, `src/a.py#parse`
    old: str
    new: str

    def to_json(self) -> dict[str, str]:
        return {"ref": self.ref, "old": self.old, "new": self.new}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


_KEYS: dict[str, str] = {}  # text -> its hash: a listing asks for the same texts again


def memory_key(text: str) -> str:
    """The store key of a memory: a hash of its text as written."""
    key = _KEYS.get(text)
    if key is None:
        if len(_KEYS) >= _KEYS_MAX:
            _KEYS.clear()
        key = _KEYS[text] = _sha(text)
    return key


def _stat(path: Path) -> Stat | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _symbol_block(lines: list[str], symbol: str) -> str | None:
    """The definition of `symbol` (its line and the more-indented lines under it), else the
    first line naming it; None when the file does not name it."""
    word = re.compile(rf"\b{re.escape(symbol)}\b")
    definition = re.compile(rf"^\s*(?:export\s+)?(?:pub\s+)?{_DEF_WORDS}\s+{re.escape(symbol)}\b")
    assign = re.compile(rf"^\s*{re.escape(symbol)}\s*[:=]")
    start = next((n for n, line in enumerate(lines) if definition.match(line)), None)
    if start is None:
        start = next((n for n, line in enumerate(lines) if assign.match(line)), None)
    if start is None:
        start = next((n for n, line in enumerate(lines) if word.search(line)), None)
        return None if start is None else lines[start].rstrip()
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and end - start < BLOCK_MAX_LINES:
        line = lines[end]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        end += 1
    return "\n".join(line.rstrip() for line in lines[start:end]).rstrip("\n")


def cited_text(file_text: str, ref: Reference) -> str | None:
    """What `ref` points at in a file with this text; None when it points at nothing."""
    lines = file_text.splitlines()
    if ref.kind == "line" and ref.line is not None:
        return lines[ref.line - 1].rstrip() if 0 < ref.line <= len(lines) else None
    if ref.kind == "path_symbol" and ref.symbol:
        return _symbol_block(lines, ref.symbol)
    return None


_REFS: dict[str, list[Reference]] = {}  # by memory key: a text is parsed once per process
_REFS_MAX = 200_000


def pinnable(text: str, key: str | None = None) -> list[Reference]:
    """The references of a memory whose cited text is pinned: `path:line` and `path#symbol`."""
    if ":" not in text and "#" not in text:
        return []
    key = key or memory_key(text)
    refs = _REFS.get(key)
    if refs is None:
        if len(_REFS) >= _REFS_MAX:
            _REFS.clear()
        refs = _REFS[key] = [r for r in find_references(text) if r.kind in ("line", "path_symbol")]
    return refs


class _Files:
    """Cited files as one check sees them: resolved, stat'ed and read at most once each."""

    def __init__(self, root: Path) -> None:
        self.index = ProjectIndex(root)
        self.resolved: dict[str, tuple[Path, Stat] | None] = {}
        self.texts: dict[Path, str | None] = {}
        self.reads = 0  # how many files this check read (the bench shows it stays 0)

    def stat(self, cited: str) -> tuple[Path, Stat] | None:
        if cited not in self.resolved:
            path = self.index.resolve(cited)
            stat = _stat(path) if path is not None else None
            self.resolved[cited] = (path, stat) if path is not None and stat else None
        return self.resolved[cited]

    def text(self, path: Path) -> str | None:
        if path not in self.texts:
            self.reads += 1
            try:
                self.texts[path] = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                self.texts[path] = None
        return self.texts[path]


_LOADED: dict[Path, tuple[Stat | None, dict[str, Any]]] = {}


def _load(path: Path) -> dict[str, Any]:
    stat = _stat(path)
    kept = _LOADED.get(path)
    if kept is not None and kept[0] == stat and stat is not None:
        return kept[1]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict) or data.get("version") != STORE_VERSION:
        data = {}
    pins = data.get("pins")
    store = {"version": STORE_VERSION, "pins": pins if isinstance(pins, dict) else {}}
    _LOADED[path] = (stat, store)
    return store


class CitationStore:
    """The pins of one project's memories; `check` pins what is new and reports what changed."""

    def __init__(self, path: Path, project_root: Path) -> None:
        self.path = path
        self.root = project_root
        self.last_reads = 0

    # req: MM1
    def check(self, texts: Mapping[str, str]) -> dict[str, list[ChangedRef]]:
        """For each key (an entry id) of `texts` (its memory text), the cited text that changed
        since that text was written; keys with none are left out. A file whose stat is as it was
        at its last verification is not read."""
        keys = {key: memory_key(text) for key, text in texts.items()}
        cited = {key: refs for key, text in texts.items() if (refs := pinnable(text, keys[key]))}
        if not cited:
            return {}
        pins = _load(self.path)["pins"]
        files = _Files(self.root)
        updates: dict[str, dict[str, Any]] = {}
        changed: dict[str, list[ChangedRef]] = {}
        for key, refs in cited.items():
            mkey = keys[key]
            kept: dict[str, Any] = pins.get(mkey) or {}
            for ref in refs:
                found = self._verify(ref, kept.get(ref.text), files)
                if found is None:
                    continue
                pin, change = found
                if pin is not kept.get(ref.text):
                    updates.setdefault(mkey, {})[ref.text] = pin
                if change is not None:
                    changed.setdefault(key, []).append(change)
        self.last_reads = files.reads
        if updates:
            self._save(updates)
        return changed

    def pin(self, texts: Iterable[str]) -> None:
        """Pin the citations of freshly written memory texts (a write hook calls this)."""
        self.check({str(n): text for n, text in enumerate(texts)})

    def _verify(
        self, ref: Reference, pin: dict[str, Any] | None, files: _Files
    ) -> tuple[dict[str, Any], ChangedRef | None] | None:
        assert ref.path is not None
        located = files.stat(ref.path)
        if located is None:
            return None  # a missing file is `missing_refs`' business
        path, stat = located
        if pin is not None and pin.get("stat") == stat:
            now = pin.get("now")
            if now is None:
                return pin, None
            return pin, ChangedRef(ref.text, str(pin.get("text", "")), str(now.get("text", "")))
        text = files.text(path)
        current = cited_text(text, ref) if text is not None else None
        if current is None:
            return None  # the line or symbol is gone: reported as missing, not changed
        sha = _sha(current)
        if pin is None:
            return {"sha": sha, "text": current[:CITED_TEXT_MAX], "stat": stat}, None
        updated = {**pin, "stat": stat}
        if sha == pin.get("sha"):
            updated.pop("now", None)
            return updated, None
        updated["now"] = {"sha": sha, "text": current[:CITED_TEXT_MAX]}
        return updated, ChangedRef(ref.text, str(pin.get("text", "")), current[:CITED_TEXT_MAX])

    def _save(self, updates: dict[str, dict[str, Any]]) -> None:
        try:
            with file_lock(self.path):
                _LOADED.pop(self.path, None)  # another process may have written since
                store = _load(self.path)
                pins = dict(store["pins"])
                for mkey, refs in updates.items():
                    pins[mkey] = {**(pins.get(mkey) or {}), **refs}
                fresh = {"version": STORE_VERSION, "pins": pins}
                atomic_write_text(self.path, json.dumps(fresh, separators=(",", ":")))
                _LOADED[self.path] = (_stat(self.path), fresh)  # what was just written
        except OSError:
            pass  # a read-only home: the marks are worked out again next time

    def forget_except(self, texts: Iterable[str]) -> None:
        """Drop the pins of memory texts no longer present (the whole catalog was checked)."""
        alive = {memory_key(t) for t in texts}
        pins = _load(self.path)["pins"]
        if all(k in alive for k in pins):
            return
        try:
            with file_lock(self.path):
                _LOADED.pop(self.path, None)
                kept = {k: v for k, v in _load(self.path)["pins"].items() if k in alive}
                atomic_write_text(self.path, json.dumps({"version": STORE_VERSION, "pins": kept}))
                _LOADED.pop(self.path, None)
        except OSError:
            pass


CITATION_CHANGED_TEMPLATE = (
    "<system-reminder>citation changed: {note}. This memory was written against the old text; "
    "verify it against the current code before relying on it.</system-reminder>"
)


def changed_reminder(changes: list[ChangedRef]) -> str | None:
    """The reminder put in front of a memory file read whose citations changed (MM1)."""
    return CITATION_CHANGED_TEMPLATE.format(note=changed_note(changes)) if changes else None


def changed_note(changes: list[ChangedRef]) -> str:
    """One line naming each changed citation with its old and new text (first line of each)."""
    parts = [
        f"`{c.ref}` was {json.dumps(_first(c.old), ensure_ascii=False)}, "
        f"now {json.dumps(_first(c.new), ensure_ascii=False)}"
        for c in changes
    ]
    return "; ".join(parts)


def _first(text: str) -> str:
    line = text.splitlines()[0] if text else ""
    return line.strip()[:120]
