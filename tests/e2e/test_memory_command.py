"""`wave memory list/show/delete/add` as a user types it (M1–M5, contract)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths

AGENTS = """# Project notes

- Always use pnpm, never npm.
- Run the linter before committing:
  `pnpm lint --fix`
  then check the diff.
- The staging database is read-only.
"""


def listing(project: Path) -> list[dict]:
    proc = run_wave("memory", "list", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_list_show_delete_round_trip_leaves_every_other_byte_intact(
    project: Path, isolated_home: Path
) -> None:
    (project / "AGENTS.md").write_text(AGENTS)
    (isolated_home / ".wave").mkdir()
    (isolated_home / ".wave" / "AGENTS.md").write_text("- My name is Alice.\n")
    mem = WavePaths.for_workdir(project).memory_dir
    mem.mkdir(parents=True)
    topic = mem / "user_role.md"
    topic.write_text("---\nname: role\ndescription: data scientist\ntype: user\n---\nbody\n")
    (mem / "MEMORY.md").write_text(
        "- [Role](user_role.md) — the user is a data scientist\n- [Other](o.md) — x\n"
    )
    old = time.time() - 40 * 86_400
    os.utime(topic, (old, old))
    (project / ".wave" / "rules").mkdir(parents=True)
    (project / ".wave" / "rules" / "api.md").write_text("---\npaths: src/api/**\n---\nAPI\n")
    (project / ".wave" / "rules" / "bad.md").write_text("---\nglobs: src/**\n---\nBAD\n")

    entries = listing(project)
    by_scope = {}
    for e in entries:
        by_scope.setdefault(e["scope"], []).append(e)
        assert {"id", "scope", "path", "title", "type", "age_days"} <= set(e)
    assert len(by_scope["project"]) == 3 and len(by_scope["user"]) == 1
    (auto,) = by_scope["auto"]
    assert auto["type"] == "user" and auto["age_days"] == 40
    rules = {Path(e["path"]).name: e for e in by_scope["rule"]}
    assert rules["api.md"]["status"] == "conditional" and "src/api/**" in rules["api.md"]["reason"]
    assert rules["bad.md"]["status"] == "inactive" and "globs" in rules["bad.md"]["reason"]

    lint = next(e for e in by_scope["project"] if "linter" in e["title"])
    shown = run_wave("memory", "show", lint["id"], cwd=project)
    assert shown.returncode == 0 and "pnpm lint --fix" in shown.stdout

    deleted = run_wave("memory", "delete", lint["id"], cwd=project)
    assert deleted.returncode == 0, deleted.stderr
    expected = AGENTS.replace(
        "- Run the linter before committing:\n  `pnpm lint --fix`\n  then check the diff.\n", ""
    )
    assert (project / "AGENTS.md").read_text() == expected

    assert run_wave("memory", "delete", auto["id"], cwd=project).returncode == 0
    assert not topic.exists()
    assert (mem / "MEMORY.md").read_text() == "- [Other](o.md) — x\n"

    missing = run_wave("memory", "show", "project:nope#9", cwd=project)
    assert missing.returncode != 0 and len(missing.stderr.strip().splitlines()) == 1


@pytest.mark.req("M1", "M2", "M4", "M5")
def test_add_creates_the_file_and_warns_about_a_duplicate(
    project: Path, isolated_home: Path
) -> None:
    """M1, M2, M4, M5."""
    added = run_wave("memory", "add", "--scope", "project", "Use pnpm", cwd=project)
    assert added.returncode == 0 and (project / "AGENTS.md").read_text() == "- Use pnpm\n"
    again = run_wave("memory", "add", "--scope", "project", "use  PNPM.", cwd=project)
    assert again.returncode == 0
    assert "already" in (again.stdout + again.stderr)
    assert (project / "AGENTS.md").read_text() == "- Use pnpm\n"
    user = run_wave("memory", "add", "--scope", "user", "I prefer short answers", cwd=project)
    assert user.returncode == 0
    assert (isolated_home / ".wave" / "AGENTS.md").read_text() == "- I prefer short answers\n"


@pytest.mark.req("M5")
def test_list_with_no_memory_at_all_is_not_an_error(project: Path) -> None:
    """M5: missing files never cause an error on read."""
    assert listing(project) == []
