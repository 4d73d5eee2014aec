"""MEMORY.md loading with the 200-line and 25,000-character caps (A2, X1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.memory.index import (
    INDEX_MAX_CHARS,
    INDEX_MAX_LINES,
    POINTER_MAX_CHARS,
    check_index_write,
    load_index,
)

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("X1")


def _index(project: Path, text: str) -> Path:
    path = WavePaths.for_workdir(project).memory_index
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _entry(i: int) -> str:
    return f"- [Entry {i}](entry_{i}.md) — hook {i}"


@pytest.mark.req("A2")
def test_a2_missing_index_is_empty(project: Path) -> None:
    view = load_index(WavePaths.for_workdir(project).memory_index)
    assert view.text == "" and view.warning is None and not view.truncated


@pytest.mark.req("A2")
def test_a2_small_index_loads_whole(project: Path) -> None:
    text = "\n".join(_entry(i) for i in range(10)) + "\n"
    view = load_index(_index(project, text))
    assert view.text == text.rstrip("\n")
    assert view.truncated_by == frozenset()
    assert view.total_lines == view.kept_lines == 10
    assert view.warning is None


@pytest.mark.req("A2")
def test_a2_exactly_200_lines_is_not_truncated(project: Path) -> None:
    view = load_index(_index(project, "\n".join(_entry(i) for i in range(200)) + "\n"))
    assert not view.truncated and view.kept_lines == 200


@pytest.mark.req("A2")
def test_a2_250_lines_cut_at_exactly_200(project: Path) -> None:
    lines = [_entry(i) for i in range(250)]
    view = load_index(_index(project, "\n".join(lines) + "\n"))
    assert view.text == "\n".join(lines[:INDEX_MAX_LINES])
    assert view.text.count("\n") == INDEX_MAX_LINES - 1
    assert view.truncated_by == frozenset({"lines"})
    assert (view.total_lines, view.kept_lines, view.dropped_entries) == (250, 200, 50)
    assert view.warning is not None
    assert "200-line limit (it has 250 lines)" in view.warning
    assert "character" not in view.warning.split("Keep each")[0]
    assert "50 entries (lines) left out" in view.warning
    assert f'starting with "{_entry(200)}"' in view.warning
    assert "under ~200 characters" in view.warning and "topic files" in view.warning


@pytest.mark.req("A2")
def test_a2_29000_chars_cut_back_to_newline(project: Path) -> None:
    lines = [f"- [{i:03}](e{i}.md) " + "x" * 280 for i in range(100)]
    text = "\n".join(lines) + "\n"
    assert 29_000 <= len(text) < 30_000
    view = load_index(_index(project, text))
    assert view.truncated_by == frozenset({"characters"})
    assert len(view.text) <= INDEX_MAX_CHARS
    assert text.startswith(view.text + "\n")  # cut exactly at a line boundary
    kept = view.text.split("\n")
    assert kept == lines[: len(kept)]
    assert view.dropped_entries == 100 - len(kept) > 0
    assert view.warning is not None
    assert "25,000-character limit" in view.warning and "line limit" not in view.warning
    assert f"{view.dropped_entries} entries (lines) left out" in view.warning
    assert f"{lines[len(kept)][:20]}" in view.warning


@pytest.mark.req("A2")
def test_a2_both_caps(project: Path) -> None:
    lines = [f"- [{i:03}](e{i}.md) " + "y" * 200 for i in range(300)]
    view = load_index(_index(project, "\n".join(lines)))
    assert view.truncated_by == frozenset({"lines", "characters"})
    assert len(view.text) <= INDEX_MAX_CHARS
    assert view.text.count("\n") < INDEX_MAX_LINES
    assert view.text.split("\n") == lines[: view.kept_lines]
    assert view.dropped_entries == 300 - view.kept_lines
    assert view.warning is not None
    assert "200-line limit (it has 300 lines) and the 25,000-character limit" in view.warning


@pytest.mark.req("A2")
def test_a2_line_ending_exactly_at_the_cap_is_kept(project: Path) -> None:
    first = "a" * (INDEX_MAX_CHARS - 2)
    view = load_index(_index(project, f"{first}\nb\nccc\n"))
    assert view.text == f"{first}\nb"
    assert len(view.text) == INDEX_MAX_CHARS
    assert view.dropped_entries == 1


@pytest.mark.req("A2")
def test_a2_a_first_line_over_the_cap_is_left_out_never_cut_mid_line(project: Path) -> None:
    """A2 / seed: "在换行处切分，避免切断行" — even a 200 KB first line is not cut."""
    view = load_index(_index(project, "z" * 200_000 + "\n- [B](b.md) — b\n"))
    assert view.text == ""
    assert view.first_line_cut and view.kept_lines == 0
    assert view.warning is not None and "without cutting a line" in view.warning
    assert view.dropped_entries == 2 and '"zzzz' in view.warning


@pytest.mark.req("A2")
def test_a2_multibyte_text_is_never_split(project: Path) -> None:
    lines = [f"- 记忆条目 {i} " + "汉" * 150 for i in range(200)]
    view = load_index(_index(project, "\n".join(lines)))
    assert "characters" in view.truncated_by
    assert "\ufffd" not in view.text
    assert view.text.split("\n") == lines[: view.kept_lines]


@pytest.mark.req("A2")
def test_a2_check_index_write() -> None:
    assert check_index_write("- [A](a.md) — short\n") is None
    assert check_index_write("") is None
    long_line = "- [A](a.md) — " + "w" * POINTER_MAX_CHARS
    note = check_index_write(long_line + "\n")
    assert note is not None and "longer than 150 characters (line 1)" in note
    many = check_index_write("\n".join(_entry(i) for i in range(230)))
    assert many is not None and "230 lines" in many and "last 30 would be dropped" in many
    big = check_index_write("\n".join("- " + "q" * 140 for _ in range(190)))
    assert big is not None and "only the first 25,000 are loaded" in big
    fm = check_index_write("---\nname: x\n---\n- [A](a.md)\n")
    assert fm is not None and "frontmatter" in fm
