"""`wave memory consolidate` merges only what the fast model judges the same fact (MM5): alike
text makes a candidate, never a merge on its own, and a merge keeps what the index said of both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths

pytestmark = pytest.mark.req("MM5")


def memory_file(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {body}\ntype: project\n---\n{body}\n"


def seed(project: Path, facts: dict[str, str]) -> tuple[Path, str]:
    memory = WavePaths.for_workdir(project).memory_dir
    memory.mkdir(parents=True)
    index = ""
    for name, body in facts.items():
        (memory / f"{name}.md").write_text(memory_file(name, body))
        index += f"- [{name}]({name}.md) — {body}\n"
    (memory / "MEMORY.md").write_text(index)
    return memory, index


def verdicts(same: bool, content: str | None = None) -> str:
    return json.dumps(
        {"merged": [{"group": n, "same": same, "content": content} for n in range(1, 9)]}
    )


def test_alike_but_different_facts_stay_apart_and_the_index_keeps_naming_them(
    model_server: ModelServer, project: Path
) -> None:
    facts = {f"fact{n}": f"Fact number {n}." for n in range(8)}
    memory, index = seed(project, facts)
    model_server.enqueue(text(verdicts(False)))
    proc = run_wave("memory", "consolidate", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "repeats" not in proc.stdout and "merged" not in proc.stdout
    for name, body in facts.items():
        assert (memory / f"{name}.md").read_text() == memory_file(name, body)
    assert (memory / "MEMORY.md").read_text() == index
    (request,) = model_server.requests  # the candidates went to the fast model, once
    ask = request.body["messages"][-1]["content"]
    assert "Fact number 0." in ask and '"same": true or false' in ask
    assert "different facts" in request.body["messages"][0]["content"]


def test_without_a_verdict_alike_text_is_not_merged(
    model_server: ModelServer, project: Path
) -> None:
    facts = {
        "port": "The dev server listens on port 8080.",
        "port2": "The dev server listens on port 8081.",
    }
    memory, index = seed(project, facts)
    model_server.enqueue(text("I am not sure."))  # no JSON answer: nothing is decided
    proc = run_wave("memory", "consolidate", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert (memory / "port.md").exists() and (memory / "port2.md").exists()
    assert (memory / "MEMORY.md").read_text() == index


def test_a_merge_folds_the_merged_away_index_line_into_the_kept_one(
    model_server: ModelServer, project: Path
) -> None:
    memory, _index = seed(
        project,
        {
            "build": "Build the project with make dist before each release.",
            "build2": "Build the project with make dist before every release.",
        },
    )
    (memory / "MEMORY.md").write_text(
        "- [Build](build.md) — how to build\n- [Release](build2.md) — how releases are cut\n"
    )
    merged = memory_file("build", "Build and release with make dist.")
    model_server.enqueue(text(verdicts(True, merged)))
    proc = run_wave("memory", "consolidate", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    kept = next(p for p in (memory / "build.md", memory / "build2.md") if p.exists())
    assert kept.read_text() == merged
    assert sum(p.exists() for p in (memory / "build.md", memory / "build2.md")) == 1
    (line,) = (memory / "MEMORY.md").read_text().splitlines()
    assert f"({kept.name})" in line
    assert "how to build" in line and "how releases are cut" in line
