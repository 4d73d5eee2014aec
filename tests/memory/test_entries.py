"""AGENTS.md list items: add, duplicate check, byte-exact delete, concurrent writers
(M1, M2, M3, M4, M5, X2)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from wave_tui.memory.entries import (
    EntryChangedError,
    add_entry,
    delete_item,
    list_items,
    normalise,
)

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("M2")

DOC = (
    "# Project memory\n"
    "\n"
    "Some intro text.\n"
    "\n"
    "- Use pnpm, not npm.\n"
    "* Tests live in `tests/`\n"
    "  and run with pytest\n"
    "\n"
    "  even after a blank line.\n"
    "1. Numbered item\n"
    "   - nested child\n"
    "\n"
    "```\n"
    "- not an item (code)\n"
    "```\n"
    "+ Last item"
)


def test_list_items_top_level_with_continuations() -> None:
    items = list_items(DOC)
    assert [i.text for i in items] == [
        "Use pnpm, not npm.",
        "Tests live in `tests/`\nand run with pytest\n\neven after a blank line.",
        "Numbered item\n- nested child",
        "Last item",
    ]
    assert [(i.start_line, i.end_line) for i in items] == [(4, 5), (5, 9), (9, 11), (15, 16)]
    assert [i.index for i in items] == [1, 2, 3, 4]


@pytest.mark.req("M1", "M5")
def test_m1_m5_add_creates_file_and_parents(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "AGENTS.md"
    result = add_entry(path, "Use pnpm")
    assert result.added and result.duplicate_of is None
    assert path.read_text(encoding="utf-8") == "- Use pnpm\n"


def test_add_ensures_newline_before_item(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_bytes(b"# Notes\r\n- first")
    add_entry(path, "second\nwith detail")
    assert path.read_bytes() == b"# Notes\r\n- first\r\n- second\r\n  with detail\r\n"


@pytest.mark.req("M4")
def test_m4_duplicate_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("- **Use  pnpm**, not npm.\n", encoding="utf-8")
    before = path.read_bytes()
    result = add_entry(path, "use pnpm, not NPM")
    assert not result.added and result.duplicate_of == "**Use  pnpm**, not npm."
    assert path.read_bytes() == before


def test_normalise() -> None:
    assert normalise("  *Use*   `pnpm`!! ") == normalise("use pnpm")


@pytest.mark.req("M3")
def test_m3_delete_removes_exactly_the_item_lines(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_bytes(DOC.replace("\n", "\r\n").encode())
    item = list_items(path.read_text(encoding="utf-8"))[1]
    removed = delete_item(path, 2, item.text)
    assert removed.text == item.text
    expected = DOC.replace(
        "* Tests live in `tests/`\n  and run with pytest\n\n  even after a blank line.\n", ""
    ).replace("\n", "\r\n")
    assert path.read_bytes() == expected.encode()


def test_delete_last_item_without_trailing_newline(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text(DOC, encoding="utf-8")
    delete_item(path, 4, "Last item")
    assert path.read_text(encoding="utf-8") == DOC.removesuffix("+ Last item")


def test_delete_follows_item_moved_by_concurrent_edit(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("- a\n- b\n- c\n", encoding="utf-8")
    path.write_text("- new\n- a\n- b\n- c\n", encoding="utf-8")  # another writer, meanwhile
    delete_item(path, 2, "b")  # index 2 is now "a": the unique "b" is removed instead
    assert path.read_text(encoding="utf-8") == "- new\n- a\n- c\n"


def test_delete_fails_cleanly_when_item_changed(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("- a\n- b changed\n", encoding="utf-8")
    with pytest.raises(EntryChangedError):
        delete_item(path, 2, "b")
    assert path.read_text(encoding="utf-8") == "- a\n- b changed\n"


def _add_many(path: str, worker: int, count: int) -> None:
    for n in range(count):
        add_entry(Path(path), f"worker {worker} item {n}")


@pytest.mark.req("X2")
def test_x2_concurrent_adds_from_processes_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_add_many, args=(str(path), w, 25)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    texts = [i.text for i in list_items(path.read_text(encoding="utf-8"))]
    assert len(texts) == 100
    assert set(texts) == {f"worker {w} item {n}" for w in range(4) for n in range(25)}
