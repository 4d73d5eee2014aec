"""`@path` imports in AGENTS.md / CLAUDE.md (MX3) and the extra project memory files (MX5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.memory.catalog import build_catalog
from wave_tui.memory.imports import MAX_IMPORT_HOPS, expand_imports, import_target
from wave_tui.memory.injection import MemoryInjector


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def reminder(paths: WavePaths, warnings: list[str]) -> str:
    text = MemoryInjector(paths, warnings.append).reminder_text()
    assert text is not None
    return text


@pytest.mark.req("MX3")
def test_mx3_import_lines_load_the_file_in_place(paths: WavePaths) -> None:
    root = paths.project_root
    write(root / "CLAUDE.md", "Intro.\n@docs/style.md\n- @docs/test.md\nOutro.\n")
    write(root / "docs/style.md", "Use tabs.\n")
    write(root / "docs/test.md", "Run pytest -q.\n")
    warnings: list[str] = []
    text = reminder(paths, warnings)
    assert "Intro.\nUse tabs.\nRun pytest -q.\nOutro." in text
    assert "@docs" not in text and warnings == []


@pytest.mark.req("MX3")
def test_mx3_imports_are_relative_to_the_importer_and_home(paths: WavePaths) -> None:
    root = paths.project_root
    write(root / "AGENTS.md", "@docs/a.md\n@~/.wave/shared.md\n")
    write(root / "docs/a.md", "A here.\n@b.md\n")  # relative to docs/
    write(root / "docs/b.md", "B here.\n")
    write(paths.home / ".wave" / "shared.md", "Home note.\n")
    warnings: list[str] = []
    text = reminder(paths, warnings)
    assert "A here.\nB here.\nHome note." in text and warnings == []


@pytest.mark.req("MX3")
def test_mx3_code_spans_and_fences_are_not_imports(paths: WavePaths) -> None:
    root = paths.project_root
    write(root / "AGENTS.md", "```\n@docs/a.md\n```\n`@docs/a.md`\nmail me @ home\n")
    write(root / "docs/a.md", "SECRET CONTENT\n")
    text = reminder(paths, [])
    assert "SECRET CONTENT" not in text and text.count("@docs/a.md") == 2
    assert import_target("see @docs/a.md for more") is None


@pytest.mark.req("MX3")
def test_mx3_cycle_and_missing_reported_in_one_line_never_fatal(paths: WavePaths) -> None:
    root = paths.project_root
    write(root / "AGENTS.md", "Top.\n@a.md\n@nope.md\nEnd.\n")
    write(root / "a.md", "In a.\n@AGENTS.md\n")
    warnings: list[str] = []
    text = reminder(paths, warnings)
    assert "Top.\nIn a.\n@AGENTS.md\n@nope.md\nEnd." in text
    assert warnings == ["AGENTS.md: imports not loaded: AGENTS.md (cycle), nope.md (missing)"]
    reminder_again = MemoryInjector(paths, warnings.append)
    reminder_again.reminder_text()
    reminder_again.reminder_text()
    assert len(warnings) == 2  # told once per session, not before every request


@pytest.mark.req("MX3")
def test_mx3_at_most_five_hops(tmp_path: Path) -> None:
    for n in range(MAX_IMPORT_HOPS + 2):
        write(tmp_path / f"f{n}.md", f"level {n}\n@f{n + 1}.md\n")
    write(tmp_path / f"f{MAX_IMPORT_HOPS + 2}.md", "too deep\n")
    top = tmp_path / "f0.md"
    result = expand_imports(top, top.read_text(), WavePaths.for_workdir(tmp_path, tmp_path))
    assert f"level {MAX_IMPORT_HOPS}\n" in result.text
    assert f"level {MAX_IMPORT_HOPS + 1}" not in result.text
    assert result.problems == [f"f{MAX_IMPORT_HOPS + 1}.md (more than 5 hops)"]


@pytest.mark.req("MX3")
def test_mx3_catalog_shows_imported_files_under_their_importer(paths: WavePaths) -> None:
    root = paths.project_root
    write(root / "CLAUDE.md", "- Own item\n@docs/style.md\n")
    write(root / "docs/style.md", "- Tabs, not spaces\n")
    write(root / "AGENTS.local.md", "- Private note\n")
    entries = [e for e in build_catalog(paths) if e.scope == "project"]
    ids = [e.id for e in entries]
    assert ids.index("project:CLAUDE.md#1") < ids.index("project:docs/style.md#1")
    imported = next(e for e in entries if e.id == "project:docs/style.md#1")
    assert imported.imported_by == "CLAUDE.md" and imported.to_json()["imported_by"] == "CLAUDE.md"
    assert "imported_by" not in entries[0].to_json()


@pytest.mark.req("MX5")
def test_mx5_dot_claude_and_local_files_are_project_memory(paths: WavePaths) -> None:
    root = paths.project_root
    write(root / ".claude/CLAUDE.md", "From dot-claude.\n")
    write(root / "CLAUDE.local.md", "Private, untracked.\n")
    text = reminder(paths, [])
    shared = text.index("Contents of .claude/CLAUDE.md (project memory):\n\nFrom dot-claude.")
    local = text.index("Contents of CLAUDE.local.md (project memory):\n\nPrivate, untracked.")
    assert shared < local
    write(root / "AGENTS.md", "Shared.\n")
    write(root / "AGENTS.local.md", "Mine.\n")
    text = reminder(paths, [])
    assert "From dot-claude." not in text and "Private, untracked." not in text
    assert text.index("Shared.") < text.index("Mine.")
