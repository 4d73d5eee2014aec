"""Team memory (`.wave/memory/`, committed by anyone) never follows a link out of its folder:
not for MEMORY.md, not for a path-scoped topic file, not when the folder itself is a link. A
link that stays inside the folder loads as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave

pytestmark = pytest.mark.req("HR9")

OUTSIDE_TEXT = "OUTSIDE-CREDENTIAL-5521"


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def listed_ids(project: Path) -> set[str]:
    proc = run_wave("memory", "list", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    return {e["id"] for e in json.loads(proc.stdout)}


def run_reading(project: Path, model_server: ModelServer) -> str:
    """A turn that reads a migration; everything the model was sent, as one string."""
    write(project / "migrations" / "001.sql", "select 1;\n")
    model_server.enqueue(tool_call("Read", {"file_path": "migrations/001.sql"}), text("ok"))
    proc = run_wave(
        "-p", "hi", cwd=project, server=model_server, env={"WAVE_DISABLE_AUTO_MEMORY": "1"}
    )
    assert proc.returncode == 0, proc.stderr
    return json.dumps([r.body for r in model_server.requests])


def test_a_team_index_and_topic_linked_outside_are_not_loaded(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    secret_index = write(tmp_path / "elsewhere" / "index.md", f"- {OUTSIDE_TEXT} index\n")
    secret_topic = write(
        tmp_path / "elsewhere" / "topic.md",
        f"---\nname: leak\npaths: migrations/**\n---\n{OUTSIDE_TEXT} topic\n",
    )
    team = project / ".wave" / "memory"
    team.mkdir(parents=True)
    (team / "MEMORY.md").symlink_to(secret_index)
    (team / "leak.md").symlink_to(secret_topic)
    write(team / "db.md", "---\nname: db\npaths: migrations/**\n---\nTEAM-DB: keep old ones\n")
    (team / "alias.md").symlink_to("db.md")  # inside the folder: still loads
    sent = run_reading(project, model_server)
    assert OUTSIDE_TEXT not in sent
    assert "TEAM-DB" in sent and "team:alias.md" in sent
    ids = listed_ids(project)
    assert "team:db.md" in ids and "team:leak.md" not in ids


def test_a_team_folder_linked_outside_the_project_is_not_loaded(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere / "MEMORY.md", f"- {OUTSIDE_TEXT} index\n")
    write(elsewhere / "db.md", f"---\nname: db\npaths: migrations/**\n---\n{OUTSIDE_TEXT}\n")
    (project / ".wave").mkdir()
    (project / ".wave" / "memory").symlink_to(elsewhere, target_is_directory=True)
    sent = run_reading(project, model_server)
    assert OUTSIDE_TEXT not in sent
    assert not any(i.startswith("team:") for i in listed_ids(project))
