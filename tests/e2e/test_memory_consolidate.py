"""`wave memory consolidate [--dry-run]`: one pass, recorded as a revertible run (MM5)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths

DAY = 86_400
OLD = "---\nname: build\ntype: project\n---\nBuild the project with make dist before release.\n"
NEW = (
    "---\nname: build2\ntype: project\n---\nBuild the project with make dist before the release!\n"
)
MERGED = "---\nname: build\ntype: project\n---\nBuild with make dist before every release.\n"
INDEX = (
    "- [Build](build.md) — how to build\n"
    "- [Build again](build2.md) — how to build\n"
    "- [Gone](gone.md) — a file that is not there\n"
    "- [Cfg](cfg.md) — config\n"
)


def seed(project: Path) -> Path:
    memory = WavePaths.for_workdir(project).memory_dir
    memory.mkdir(parents=True)
    (memory / "build.md").write_text(OLD)
    past = time.time() - 5 * DAY
    os.utime(memory / "build.md", (past, past))
    (memory / "build2.md").write_text(NEW)
    (memory / "cfg.md").write_text(
        "---\nname: cfg\ntype: project\n---\nConfig is in src/old_cfg.py\n"
    )
    (memory / "MEMORY.md").write_text(INDEX)
    return memory


@pytest.mark.req("MM5")
def test_dry_run_shows_the_plan_and_changes_nothing(
    model_server: ModelServer, project: Path
) -> None:
    memory = seed(project)
    model_server.enqueue(text(json.dumps({"merged": [{"group": 1, "content": MERGED}]})))
    proc = run_wave("memory", "consolidate", "--dry-run", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "build.md: repeats build2.md; merged into it" in proc.stdout
    assert "cfg.md: cites missing or changed code: src/old_cfg.py" in proc.stdout
    assert "MEMORY.md: rewritten under its caps" in proc.stdout
    assert "+Build with make dist before every release." in proc.stdout
    assert "(dry run: nothing changed)" in proc.stdout
    assert (memory / "build.md").read_text() == OLD and (memory / "MEMORY.md").read_text() == INDEX
    (request,) = model_server.requests  # one request for every group
    assert "make dist before the release!" in request.body["messages"][-1]["content"]


@pytest.mark.req("MM5")
def test_consolidate_is_a_run_that_one_revert_undoes(
    model_server: ModelServer, project: Path
) -> None:
    memory = seed(project)
    model_server.enqueue(text(json.dumps({"merged": [{"group": 1, "content": MERGED}]})))
    proc = run_wave("memory", "consolidate", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert (memory / "build2.md").read_text() == MERGED  # the newer file keeps the merge
    assert not (memory / "build.md").exists() and not (memory / "cfg.md").exists()
    assert (memory / "MEMORY.md").read_text() == "- [Build again](build2.md) — how to build\n"
    (run,) = json.loads(run_wave("memory", "runs", "--json", cwd=project).stdout)
    assert run["kind"] == "consolidation" and f"run {run['id']}" in proc.stdout
    undone = run_wave("memory", "revert", run["id"], cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert (memory / "build.md").read_text() == OLD and (memory / "build2.md").read_text() == NEW
    assert (memory / "MEMORY.md").read_text() == INDEX and (memory / "cfg.md").exists()


@pytest.mark.req("MM5")
def test_in_review_mode_consolidation_waits_in_the_inbox(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    memory = seed(project)
    (isolated_home / ".wave").mkdir(exist_ok=True)
    (isolated_home / ".wave" / "settings.json").write_text('{"autoMemoryReview": true}')
    model_server.enqueue(text(json.dumps({"merged": [{"group": 1, "content": MERGED}]})))
    proc = run_wave("memory", "consolidate", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "waiting for review" in proc.stdout
    assert (memory / "build.md").read_text() == OLD  # nothing written yet
    items = json.loads(run_wave("memory", "inbox", "--json", cwd=project).stdout)
    deletion = next(i for i in items if i["relative"] == "cfg.md")
    assert deletion["after"] is None
    assert run_wave("memory", "accept", deletion["id"], cwd=project).returncode == 0
    assert not (memory / "cfg.md").exists()


@pytest.mark.req("HR9")
def test_consolidation_never_writes_through_a_link_out_of_the_memory_folder(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    """A duplicate pair whose files are links to files outside the memory folder: neither the
    merge nor the removal reaches the targets."""
    memory = seed(project)
    outside = tmp_path / "outside"
    outside.mkdir()
    for name, body in (("build.md", OLD), ("build2.md", NEW)):
        (outside / name).write_text(body)
        (memory / name).unlink()
        (memory / name).symlink_to(outside / name)
    model_server.enqueue(text(json.dumps({"merged": [{"group": 1, "content": MERGED}]})))

    proc = run_wave("memory", "consolidate", cwd=project, server=model_server)

    assert proc.returncode == 0, proc.stderr
    assert (outside / "build.md").read_text() == OLD
    assert (outside / "build2.md").read_text() == NEW
    assert (memory / "build.md").is_symlink() and (memory / "build2.md").is_symlink()
    assert "merged into it" not in proc.stdout
