"""The memory catalog: ids, ages, rule status and deletion (M3, R8, R10, T2)."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.memory import catalog
from wave_tui.memory.catalog import CatalogCache, UnknownEntryError, build_catalog, delete_entry

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("R10")

NOW = datetime(2026, 8, 20, 12, 0, tzinfo=UTC)
DAY = 86_400


def clock() -> datetime:
    return NOW


def write(path: Path, text: str, age_s: float = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    stamp = NOW.timestamp() - age_s
    os.utime(path, (stamp, stamp))
    return path


@pytest.fixture
def paths(project: Path) -> WavePaths:
    p = WavePaths.for_workdir(project)
    write(p.project_agents_md, "# Memory\n\n- Use pnpm\n- Run `make test`\n", age_s=3 * DAY + 5)
    write(p.user_agents_md, "- Answer tersely\n", age_s=-3600)  # future mtime: clock skew
    write(p.memory_index, "- [Build](build.md) — how to build\n- [Deploy](ops/deploy.md)\n")
    write(
        p.memory_dir / "build.md",
        "---\nname: Build commands\ntype: project\n---\nmake all\n",
        age_s=2 * DAY - 1,
    )
    write(p.memory_dir / "ops" / "deploy.md", "# Deploying\n\nUse the script.\n", age_s=DAY + 1)
    write(p.project_root / ".wave/rules/api.md", "---\npaths: src/api/**/*.ts\n---\nAPI.\n")
    write(p.project_root / ".wave/rules/bad.md", "---\nglobs: x\n---\nBad.\n")
    write(p.home / ".wave/rules/style.md", "Style.\n")
    return p


def by_id(paths: WavePaths) -> dict[str, object]:
    return {e.id: e for e in build_catalog(paths, clock)}


@pytest.mark.req("M3")
def test_m3_catalog_ids_titles_types_and_ages(paths: WavePaths) -> None:
    entries = build_catalog(paths, clock)
    assert [e.id for e in entries] == [
        "project:AGENTS.md#1",
        "project:AGENTS.md#2",
        "user:AGENTS.md#1",
        "auto:build.md",
        "auto:ops/deploy.md",
        "rule:project:api.md",
        "rule:user:style.md",
        "rule:project:bad.md",
    ]
    e = {x.id: x for x in entries}
    assert (e["project:AGENTS.md#2"].title, e["project:AGENTS.md#2"].age_days) == (
        "Run `make test`",
        3,
    )
    assert not e["project:AGENTS.md#2"].stale  # instructions do not go stale by age
    assert (e["user:AGENTS.md#1"].age_days, e["user:AGENTS.md#1"].stale) == (0, False)
    build = e["auto:build.md"]
    assert (build.title, build.type, build.age_days, build.stale) == (
        "Build commands",
        "project",
        1,
        False,
    )
    deploy = e["auto:ops/deploy.md"]
    assert (deploy.title, deploy.type, deploy.age_days) == ("Deploying", None, 1)
    assert (e["rule:project:api.md"].status, e["rule:project:api.md"].reason) == (
        "conditional",
        "conditional: src/api/**/*.ts",
    )
    assert e["rule:project:bad.md"].status == "inactive"
    assert e["rule:project:bad.md"].reason.startswith("inactive: unknown frontmatter key 'globs'")
    assert e["rule:user:style.md"].status == "always"


@pytest.mark.req("M3")
def test_m3_to_json_keys(paths: WavePaths) -> None:
    e = by_id(paths)
    assert set(e["auto:build.md"].to_json()) >= {"id", "scope", "path", "title", "type", "age_days"}
    assert "status" not in e["auto:build.md"].to_json()
    assert e["rule:project:api.md"].to_json()["status"] == "conditional"


@pytest.mark.req("M3")
def test_m3_delete_list_item_leaves_rest_intact(paths: WavePaths) -> None:
    removed = delete_entry(paths, "project:AGENTS.md#1")
    assert removed.title == "Use pnpm"
    assert paths.project_agents_md.read_text(encoding="utf-8") == "# Memory\n\n- Run `make test`\n"


def test_delete_topic_file_removes_index_pointer(paths: WavePaths) -> None:
    delete_entry(paths, "auto:ops/deploy.md")
    assert not (paths.memory_dir / "ops" / "deploy.md").exists()
    assert paths.memory_index.read_text(encoding="utf-8") == "- [Build](build.md) — how to build\n"
    delete_entry(paths, "auto:build.md")
    assert paths.memory_index.read_text(encoding="utf-8") == ""


def test_delete_rule_file(paths: WavePaths) -> None:
    delete_entry(paths, "rule:user:style.md")
    assert not (paths.home / ".wave/rules/style.md").exists()


def test_unknown_id(paths: WavePaths) -> None:
    with pytest.raises(UnknownEntryError):
        delete_entry(paths, "project:AGENTS.md#99")


def test_empty_catalog_without_any_memory(project: Path) -> None:
    assert build_catalog(WavePaths.for_workdir(project), clock) == []


@pytest.mark.req("T1", "T2")
def test_t2_only_auto_memories_older_than_a_day_are_stale(paths: WavePaths) -> None:
    """Stale = an observation older than one day; instructions never are (T1/T2)."""
    write(paths.memory_dir / "old.md", "---\nname: Old\ntype: project\n---\nx\n", age_s=40 * DAY)
    write(paths.project_root / ".wave/rules/api.md", "---\npaths: src/**\n---\nA.\n", 40 * DAY)
    e = {x.id: x for x in build_catalog(paths, clock)}
    assert e["auto:old.md"].stale and e["auto:old.md"].age_days == 40
    assert not e["auto:build.md"].stale  # 1 day: today or yesterday is fresh
    assert not e["rule:project:api.md"].stale and e["rule:project:api.md"].age_days == 40


@pytest.mark.req("M3")
def test_m3_deleting_a_topic_file_removes_only_its_own_pointer(paths: WavePaths) -> None:
    """`a.md` is not `data.md`, `sub/a.md` or `other/a.md` (review bug 5)."""
    for rel in ("a.md", "data.md", "sub/a.md", "other/a.md"):
        write(paths.memory_dir / rel, f"---\nname: {rel}\n---\nx\n")
    write(
        paths.memory_index,
        "- [A](a.md) — a\n- [Data](data.md) — d\n- [Sub](sub/a.md) — s\n- [Other](other/a.md) — o\n",
    )
    delete_entry(paths, "auto:a.md")
    assert paths.memory_index.read_text() == (
        "- [Data](data.md) — d\n- [Sub](sub/a.md) — s\n- [Other](other/a.md) — o\n"
    )
    delete_entry(paths, "auto:sub/a.md")
    assert paths.memory_index.read_text() == "- [Data](data.md) — d\n- [Other](other/a.md) — o\n"
    assert (paths.memory_dir / "other" / "a.md").exists()


@pytest.mark.req("R8")
def test_r8_an_overridden_rule_has_its_own_id_and_deleting_it_keeps_the_winner(
    paths: WavePaths,
) -> None:
    """Review bug 6: `.wave/rules/style.md` and `.claude/rules/style.md` never share an id."""
    winner = write(paths.project_root / ".wave/rules/style.md", "WAVE\n")
    loser = write(paths.project_root / ".claude/rules/style.md", "CLAUDE\n")
    e = {x.id: x for x in build_catalog(paths, clock)}
    assert (
        e["rule:project:style.md"].path == winner and e["rule:project:style.md"].status == "always"
    )
    assert e["rule:project@claude:style.md"].status == "inactive"
    delete_entry(paths, "rule:project@claude:style.md")
    assert winner.exists() and not loser.exists()


@pytest.mark.req("M3")
def test_m3_deleting_a_listed_item_after_the_file_changed_never_hits_another_item(
    paths: WavePaths,
) -> None:
    """The UI lists `#1 first`; the file then loses that item: nothing else may be deleted."""
    from wave_tui.memory.entries import EntryChangedError

    write(paths.project_agents_md, "- first\n- second\n")
    listed = {e.id: e for e in build_catalog(paths, clock)}["project:AGENTS.md#1"]
    write(paths.project_agents_md, "- second\n")
    with pytest.raises(EntryChangedError):
        delete_entry(paths, listed.id, listed)
    assert paths.project_agents_md.read_text() == "- second\n"
    write(paths.project_agents_md, "- new\n- first\n- second\n")  # moved: the right one goes
    delete_entry(paths, listed.id, listed)
    assert paths.project_agents_md.read_text() == "- new\n- second\n"


@pytest.mark.req("M3")
def test_m3_prose_outside_list_items_is_shown_and_not_deleted_blindly(paths: WavePaths) -> None:
    """An AGENTS.md written as prose is loaded every turn, so the catalog must show it."""
    from wave_tui.memory.entries import EntryError

    write(
        paths.project_agents_md,
        "# Notes\n\nThis service talks to Kafka; never block the consumer loop.\n\n- Use pnpm\n",
    )
    e = {x.id: x for x in build_catalog(paths, clock)}
    whole = e["project:AGENTS.md"]
    assert "Kafka" in whole.body and "Use pnpm" not in whole.body
    assert e["project:AGENTS.md#1"].body == "Use pnpm"
    with pytest.raises(EntryError, match="free text"):
        delete_entry(paths, "project:AGENTS.md")
    assert "Kafka" in paths.project_agents_md.read_text()


@pytest.mark.req("M3")
def test_m3_headings_alone_are_not_an_entry(paths: WavePaths) -> None:
    ids = {x.id for x in build_catalog(paths, clock)}
    assert "project:AGENTS.md" not in ids  # "# Memory" heading + list items only


# -- the cache kept between builds ---------------------------------------------
def as_json(paths: WavePaths, now: datetime = NOW, cache: CatalogCache | None = None) -> list[Any]:
    return [e.to_json() for e in build_catalog(paths, lambda: now, cache=cache)]


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file counts as settled however recently written: the cache keeps it at once."""
    monkeypatch.setattr(catalog, "SETTLED_NS", 0)


@pytest.mark.usefixtures("settled")
def test_a_cached_build_reuses_unchanged_files_and_reads_changed_ones_again(
    paths: WavePaths,
) -> None:
    cache = CatalogCache()
    first = build_catalog(paths, clock, cache=cache)
    again = build_catalog(paths, clock, cache=cache)
    assert [e.to_json() for e in again] == [e.to_json() for e in first] == as_json(paths)
    reused = {e.id for e, f in zip(again, first, strict=True) if e is f}
    assert {"project:AGENTS.md#1", "user:AGENTS.md#1", "auto:build.md"} <= reused

    with paths.project_agents_md.open("a", encoding="utf-8") as fh:
        fh.write("- Added in an editor\n")
    write(paths.memory_dir / "new.md", "---\nname: Written by the fork\n---\nx\n")
    (paths.memory_dir / "ops" / "deploy.md").unlink()
    assert as_json(paths, cache=cache) == as_json(paths)
    ids = {e.id for e in build_catalog(paths, clock, cache=cache)}
    assert {"project:AGENTS.md#3", "auto:new.md"} <= ids and "auto:ops/deploy.md" not in ids


@pytest.mark.usefixtures("settled")
def test_a_same_size_rewrite_with_its_old_mtime_is_read_again(paths: WavePaths) -> None:
    """Size and mtime alone would miss it: the change time (set by every write) does not."""
    cache = CatalogCache()
    topic = paths.memory_dir / "build.md"
    before = topic.stat()
    assert build_catalog(paths, clock, cache=cache)
    time.sleep(0.01)  # a later change time, even on coarse clocks' next tick
    topic.write_text(topic.read_text().replace("make all", "make alL"), encoding="utf-8")
    os.utime(topic, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert topic.stat().st_size == before.st_size
    entry = {e.id: e for e in build_catalog(paths, clock, cache=cache)}["auto:build.md"]
    assert "make alL" in entry.body


@pytest.mark.usefixtures("settled")
def test_cached_entries_age_with_the_clock(paths: WavePaths) -> None:
    cache = CatalogCache()
    build_catalog(paths, clock, cache=cache)
    later = NOW + timedelta(days=3)
    assert as_json(paths, later, cache) == as_json(paths, later)
    entry = {e.id: e for e in build_catalog(paths, lambda: later, cache=cache)}["auto:build.md"]
    assert entry.age_days == 4 and entry.stale


def test_a_file_changed_in_the_last_seconds_is_not_kept(paths: WavePaths) -> None:
    """It may change again within its timestamps' granularity and keep its stat: read again."""
    cache = CatalogCache()
    assert build_catalog(paths, clock, cache=cache) and cache.kept == {}
