"""Path-scoped memories (MM3), team memory (MM4) and use counts (MM6) through `wave -p`."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import parts, system_text
from wave_tui.config.paths import WavePaths

DAY = 86_400


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def listing(project: Path) -> dict[str, dict]:
    proc = run_wave("memory", "list", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    return {e["id"]: e for e in json.loads(proc.stdout)}


def transcript_lines(home: Path) -> list[dict]:
    (path,) = (home / ".wave" / "projects").glob("*/*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.req("MM3")
@pytest.mark.req("MM6")
def test_a_path_scoped_memory_keeps_its_index_line_and_loads_its_body_on_a_matching_read(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    memory = WavePaths.for_workdir(project).memory_dir
    write(memory / "MEMORY.md", "- [API](api.md) — how the API handlers validate\n")
    write(memory / "api.md", "---\nname: api\npaths: src/api/**\n---\nAPI-MEMORY-BODY: use zod.\n")
    write(project / "src" / "ui" / "b.ts", "b\n")
    write(project / "src" / "api" / "user.ts", "u\n")
    write(project / "src" / "api" / "v2" / "o.ts", "o\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "src/ui/b.ts"}),
        tool_call("Read", {"file_path": "src/api/user.ts"}),
        tool_call("Read", {"file_path": "src/api/v2/o.ts"}),
        text("done"),
    )
    proc = run_wave("-p", "look", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    first = model_server.requests[0].body
    assert "how the API handlers validate" in system_text(first)  # the index line, always
    assert "API-MEMORY-BODY" not in json.dumps(first["messages"])
    assert "API-MEMORY-BODY" not in json.dumps(model_server.requests[1].body["messages"])
    tail = model_server.requests[2].body["messages"][-1]
    assert tail["role"] == "tool"
    loaded = json.dumps(tail)
    assert "<!-- memory: auto:api.md -->" in loaded and "API-MEMORY-BODY" in loaded
    assert "src/api/user.ts matches its path pattern src/api/**" in loaded
    final = model_server.requests[3].body["messages"]
    assert sum("API-MEMORY-BODY" in json.dumps(m) for m in final) == 1  # once per session
    metas = [m for m in transcript_lines(isolated_home) if m.get("isMeta")]
    assert [m["meta"].get("pathMemoryId") for m in metas] == ["auto:api.md"]
    entry = listing(project)["auto:api.md"]
    assert entry["status"] == "conditional" and entry["reason"] == "conditional: src/api/**"
    assert entry["loads"] == 1 and entry["last_loaded"].startswith(time.strftime("%Y-"))


@pytest.mark.req("MM3")
def test_resume_does_not_load_a_path_scoped_memory_again(
    model_server: ModelServer, project: Path
) -> None:
    memory = WavePaths.for_workdir(project).memory_dir
    write(memory / "api.md", "---\npaths: src/**\n---\nAPI-MEMORY-BODY\n")
    write(project / "src" / "a.ts", "a\n")
    model_server.enqueue(tool_call("Read", {"file_path": "src/a.ts"}), text("ok"))
    assert run_wave("-p", "x", cwd=project, server=model_server).returncode == 0
    (project / "src" / "a.ts").write_text("changed\n")
    model_server.enqueue(tool_call("Read", {"file_path": "src/a.ts"}), text("ok"))
    assert run_wave("-p", "y", "--continue", cwd=project, server=model_server).returncode == 0
    final = model_server.requests[-1].body["messages"]
    assert sum("API-MEMORY-BODY" in json.dumps(m) for m in final) == 1


@pytest.mark.req("MM4")
def test_team_memory_loads_after_the_project_agents_md_and_its_path_topics_on_a_read(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    write(project / "AGENTS.md", "PROJECT-AGENTS\n")
    write(isolated_home / ".wave" / "AGENTS.md", "USER-AGENTS\n")
    team = project / ".wave" / "memory"
    write(team / "MEMORY.md", "- [Deploys](deploys.md) — TEAM-INDEX: deploys go through CI\n")
    write(
        team / "db.md", "---\nname: db\npaths: migrations/**\n---\nTEAM-DB: never edit old ones\n"
    )
    write(project / "migrations" / "001.sql", "select 1;\n")
    model_server.enqueue(tool_call("Read", {"file_path": "migrations/001.sql"}), text("ok"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    reminder = parts(model_server.requests[0].body["messages"][1])[0]
    assert "(team memory, committed with the project" in reminder
    assert reminder.index("PROJECT-AGENTS") < reminder.index("TEAM-INDEX")
    assert reminder.index("TEAM-INDEX") < reminder.index("USER-AGENTS")
    assert "TEAM-DB" not in json.dumps(model_server.requests[0].body)
    loaded = json.dumps(model_server.requests[1].body["messages"][-1])
    assert "<!-- memory: team:db.md -->" in loaded and "TEAM-DB" in loaded
    entry = listing(project)["team:db.md"]
    assert entry["scope"] == "team" and entry["loads"] == 1
    table = run_wave("memory", "list", cwd=project).stdout
    assert "Team memory (.wave/memory/)" in table and "team:db.md" in table


@pytest.mark.req("MM6")
def test_an_always_rule_counts_one_load_per_session_and_an_old_unread_rule_none(
    model_server: ModelServer, project: Path
) -> None:
    write(project / ".wave" / "rules" / "style.md", "Use tabs.\n")
    old = write(project / ".wave" / "rules" / "legacy.md", "---\npaths: legacy/**\n---\nOld.\n")
    past = time.time() - 40 * DAY
    os.utime(old, (past, past))
    model_server.enqueue(text("one"), text("two"), text("three"))
    for prompt in ("a", "b"):
        assert run_wave("-p", prompt, cwd=project, server=model_server).returncode == 0
    entries = listing(project)
    assert entries["rule:project:style.md"]["loads"] == 2
    legacy = entries["rule:project:legacy.md"]
    assert legacy["loads"] == 0 and legacy["last_loaded"] is None
    assert "loads" not in entries.get("project:AGENTS.md", {"x": 1})
