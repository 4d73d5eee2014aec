"""`wave memory search`, `list --duplicates`, `add` naming a repeat, `list --json` missing_refs
(MX6, MX9, MX10) as a user types them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths


def wave_memory(project: Path, *args: str):
    proc = run_wave("memory", *args, cwd=project)
    assert proc.returncode == 0, proc.stderr
    return proc


def seed(project: Path) -> Path:
    (project / "AGENTS.md").write_text(
        "- Deploy with scripts/deploy.sh on Fridays\n- Use pnpm, never npm.\n"
    )
    mem = WavePaths.for_workdir(project).memory_dir
    mem.mkdir(parents=True)
    (mem / "db.md").write_text(
        "---\nname: database\ntype: project\n---\nThe staging database is read-only.\n"
    )
    (mem / "pkg.md").write_text("---\nname: packages\ntype: feedback\n---\nUse pnpm, never npm\n")
    return mem


@pytest.mark.req("MX10")
def test_mx10_search_matches_titles_and_content(project: Path) -> None:
    seed(project)
    found = json.loads(wave_memory(project, "search", "staging", "READ-ONLY", "--json").stdout)
    assert [e["id"] for e in found] == ["auto:db.md"]  # "staging" is only in the body
    by_title = json.loads(wave_memory(project, "search", "database", "--json").stdout)
    assert [e["id"] for e in by_title] == ["auto:db.md"]
    text = wave_memory(project, "search", "nothing-like-this").stdout
    assert text.strip() == "No matching memory entries."


@pytest.mark.req("MX9")
def test_mx9_list_duplicates_pairs_an_auto_memory_with_the_agents_item(project: Path) -> None:
    seed(project)
    pairs = json.loads(wave_memory(project, "list", "--duplicates", "--json").stdout)
    assert pairs == [{"id": "auto:pkg.md", "duplicate_of": "project:AGENTS.md#2", "ratio": 1.0}]
    assert (
        "auto:pkg.md repeats project:AGENTS.md#2"
        in wave_memory(project, "list", "--duplicates").stdout
    )


@pytest.mark.req("MX9")
def test_mx9_add_names_the_entry_it_repeats(project: Path) -> None:
    seed(project)
    proc = wave_memory(project, "add", "--scope", "user", "The staging database is read-only")
    assert "saved to" in proc.stdout
    assert "note: this entry repeats auto:db.md" in proc.stderr


@pytest.mark.req("MX6")
def test_mx6_list_json_carries_missing_refs(project: Path) -> None:
    seed(project)
    entries = {e["id"]: e for e in json.loads(wave_memory(project, "list", "--json").stdout)}
    assert entries["project:AGENTS.md#1"]["missing_refs"] == ["scripts/deploy.sh"]
    assert "missing_refs" not in entries["project:AGENTS.md#2"]
    (project / "scripts").mkdir()
    (project / "scripts" / "deploy.sh").write_text("echo deploy\n")
    entries = {e["id"]: e for e in json.loads(wave_memory(project, "list", "--json").stdout)}
    assert "missing_refs" not in entries["project:AGENTS.md#1"]
    (project / "scripts" / "deploy.sh").unlink()
    table = wave_memory(project, "list").stdout
    assert "cites missing: scripts/deploy.sh" in table
