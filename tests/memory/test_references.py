"""Stale references in memories (MX6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.memory.catalog import build_catalog, with_missing_refs
from wave_tui.memory.manifest import build_manifest
from wave_tui.memory.references import find_references, missing_references


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.req("MX6")
def test_mx6_finds_files_lines_and_code_symbols_not_urls_or_commands() -> None:
    refs = find_references(
        "See src/app/main.py:12 and `parse_config()`, also README.md. "
        "Docs at https://example.com/a/b.html. Run `pnpm test` and `Foo.bar`."
    )
    assert [(r.kind, r.text) for r in refs] == [
        ("line", "src/app/main.py:12"),
        ("file", "README.md"),
        ("symbol", "parse_config()"),
        ("symbol", "Foo.bar"),
    ]


@pytest.mark.req("MX6")
def test_mx6_missing_file_line_past_end_and_gone_symbol(project: Path) -> None:
    write(project / "src/app.py", "def load_settings():\n    return 1\n")
    write(project / "pkg/deep/util.py", "x = 1\n")
    texts = {
        "ok": "src/app.py:2 defines `load_settings()`; util.py is in pkg.",
        "gone": "src/old.py, src/app.py:40 and `parse_config` were renamed.",
    }
    assert missing_references(texts, project) == {
        "gone": ["src/old.py", "src/app.py:40", "parse_config"]
    }


@pytest.mark.req("MX6")
def test_mx6_catalog_marks_auto_memories_and_agents_items_not_rules(project: Path) -> None:
    paths = WavePaths.for_workdir(project)
    write(project / "AGENTS.md", "- Entry point is src/main.py\n- Use tabs\n")
    write(paths.memory_dir / "build.md", "---\nname: build\n---\nBuild with scripts/build.sh\n")
    write(project / ".wave/rules/r.md", "Mention gone/file.py always.\n")
    entries = with_missing_refs(build_catalog(paths), project)
    marked = {e.id: list(e.missing_refs) for e in entries if e.missing_refs}
    assert marked == {
        "project:AGENTS.md#1": ["src/main.py"],
        "auto:build.md": ["scripts/build.sh"],
    }
    as_json = next(e for e in entries if e.id == "auto:build.md").to_json()
    assert as_json["missing_refs"] == ["scripts/build.sh"]
    assert "missing_refs" not in next(e for e in entries if e.id.endswith("#2")).to_json()


@pytest.mark.req("MX6")
def test_mx6_extraction_manifest_names_memories_that_cite_missing_things(project: Path) -> None:
    paths = WavePaths.for_workdir(project)
    write(project / "real.py", "pass\n")
    write(paths.memory_dir / "a.md", "---\ntype: project\n---\nSee real.py and gone.py\n")
    write(paths.memory_dir / "b.md", "---\ntype: project\n---\nSee real.py\n")
    lines = build_manifest(paths.memory_dir, project_root=project).splitlines()
    a = next(line for line in lines if " a.md " in line)
    b = next(line for line in lines if " b.md " in line)
    assert a.endswith("[cites what no longer exists: gone.py; fix or remove it]")
    assert "cites" not in b
    assert "cites" not in build_manifest(paths.memory_dir)  # without a project: plain lines
