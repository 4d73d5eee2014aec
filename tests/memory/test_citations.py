"""Verified citations: the cited text's hash is kept; a change marks the memory (MM1)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.memory.catalog import build_catalog
from wave_tui.memory.catalog_marks import with_changed_refs
from wave_tui.memory.citations import CitationStore, cited_text
from wave_tui.memory.manifest import build_manifest
from wave_tui.memory.references import find_references, missing_references

CODE = "import os\n\n\ndef parse(text):\n    return text.split()\n\n\nLIMIT = 3\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.req("MM1")
def test_path_symbol_citations_are_found_and_point_at_the_definition_block() -> None:
    refs = find_references("`src/a.py#parse` splits; the cap is src/a.py:8.")
    assert [(r.kind, r.text) for r in refs] == [
        ("path_symbol", "src/a.py#parse"),
        ("line", "src/a.py:8"),
    ]
    assert cited_text(CODE, refs[0]) == "def parse(text):\n    return text.split()"
    assert cited_text(CODE, refs[1]) == "LIMIT = 3"


@pytest.mark.req("MM1")
def test_a_path_symbol_naming_a_symbol_the_file_lacks_is_missing(project: Path) -> None:
    write(project / "src/a.py", CODE)
    texts = {"ok": "see src/a.py#parse", "gone": "see src/a.py#render"}
    assert missing_references(texts, project) == {"gone": ["src/a.py#render"]}


@pytest.mark.req("MM1")
def test_changed_cited_text_is_reported_with_old_and_new_and_clears_when_rewritten(
    project: Path,
) -> None:
    code = write(project / "src/a.py", CODE)
    store = CitationStore(project / "pins.json", project)
    texts = {"m": "The cap is src/a.py:8 and `src/a.py#parse` splits on spaces."}
    assert store.check(texts) == {}  # first sight: pinned
    code.write_text(CODE.replace("LIMIT = 3", "LIMIT = 5"))
    (change,) = store.check(texts)["m"]
    assert (change.ref, change.old, change.new) == ("src/a.py:8", "LIMIT = 3", "LIMIT = 5")
    code.write_text(CODE.replace("text.split()", "text.split(',')"))
    changed = store.check(texts)["m"]
    assert [c.ref for c in changed] == ["src/a.py#parse"]
    assert changed[0].new.endswith("return text.split(',')")
    # The memory rewritten after the change is pinned to the code as it now is.
    assert store.check({"m": texts["m"] + " (checked)"}) == {}


@pytest.mark.req("MM1")
def test_a_file_whose_stat_is_unchanged_is_not_read_again(project: Path) -> None:
    code = write(project / "src/a.py", CODE)
    store = CitationStore(project / "pins.json", project)
    texts = {f"m{n}": f"Note {n}: src/a.py:8 holds the cap." for n in range(50)}
    store.check(texts)
    assert store.last_reads == 1  # one read pins all fifty
    store.check(texts)
    assert store.last_reads == 0
    code.write_text(CODE + "# more\n")  # changed elsewhere in the file: read once, still same
    assert store.check(texts) == {}
    assert store.last_reads == 1
    store.check(texts)
    assert store.last_reads == 0


@pytest.mark.req("MM1")
def test_catalog_marks_auto_memories_and_agents_items_citation_changed(project: Path) -> None:
    paths = WavePaths.for_workdir(project)
    code = write(project / "src/a.py", CODE)
    write(project / "AGENTS.md", "- The cap lives at src/a.py:8\n- Use tabs\n")
    write(paths.memory_dir / "parse.md", "---\nname: parse\n---\nsrc/a.py#parse splits\n")
    assert all(not e.changed_refs for e in with_changed_refs(build_catalog(paths), paths))
    code.write_text(CODE.replace("LIMIT = 3", "LIMIT = 4").replace("split()", "split(';')"))
    entries = with_changed_refs(build_catalog(paths), paths)
    marked = {e.id: [c.ref for c in e.changed_refs] for e in entries if e.changed_refs}
    assert marked == {"project:AGENTS.md#1": ["src/a.py:8"], "auto:parse.md": ["src/a.py#parse"]}
    as_json = next(e for e in entries if e.id == "project:AGENTS.md#1").to_json()
    assert as_json["changed_refs"] == [
        {"ref": "src/a.py:8", "old": "LIMIT = 3", "new": "LIMIT = 4"}
    ]
    assert next(e for e in entries if e.id.endswith("#2")).to_json()["changed_refs"] == []


@pytest.mark.req("MM1")
def test_the_forks_listing_names_a_changed_citation(project: Path) -> None:
    paths = WavePaths.for_workdir(project)
    code = write(project / "src/a.py", CODE)
    write(paths.memory_dir / "cap.md", "---\ntype: project\n---\nThe cap is src/a.py:8\n")
    write(paths.memory_dir / "other.md", "---\ntype: project\n---\nNothing cited\n")
    citations = paths.citations_file
    assert "citation changed" not in build_manifest(
        paths.memory_dir, project_root=project, citations=citations
    )
    code.write_text(CODE.replace("LIMIT = 3", "LIMIT = 9"))
    lines = build_manifest(paths.memory_dir, project_root=project, citations=citations)
    cap = next(line for line in lines.splitlines() if " cap.md " in line)
    assert cap.endswith(
        '[citation changed: `src/a.py:8` was "LIMIT = 3", now "LIMIT = 9"; '
        "verify, then fix or remove it]"
    )
    assert "citation" not in next(line for line in lines.splitlines() if " other.md " in line)
    assert os.path.exists(citations)
