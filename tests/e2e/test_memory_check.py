"""`wave memory check`: contradictions judged by the fast model in one request (MM2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths
from wave_tui.memory.conflicts import Side, candidate_pairs

AGENTS = "- Install dependencies with pnpm install\n- The staging database is read-only\n"
TOPIC = "---\nname: deps\ntype: project\n---\nInstall dependencies with npm install, never pnpm.\n"


def seed(project: Path) -> None:
    (project / "AGENTS.md").write_text(AGENTS)
    memory = WavePaths.for_workdir(project).memory_dir
    memory.mkdir(parents=True)
    (memory / "deps.md").write_text(TOPIC)
    (memory / "weather.md").write_text("---\nname: w\n---\nThe office kitchen closes at five.\n")


@pytest.mark.req("MM2")
def test_candidates_come_from_shared_topic_words_or_citations_not_every_pair() -> None:
    sides = [
        Side("a", "project", "Install dependencies with pnpm install"),
        Side("b", "auto", "Install dependencies with npm install, never pnpm"),
        Side("c", "auto", "The office kitchen closes at five"),
        Side("d", "rule", "See src/db.py before changing queries"),
        Side("e", "auto", "Queries in src/db.py are hand-written"),
    ]
    pairs = {(a.id, b.id) for a, b in candidate_pairs(sides)}
    assert pairs == {("a", "b"), ("d", "e")}


@pytest.mark.req("MM2")
def test_check_asks_the_fast_model_once_and_prints_the_pairs_it_names(
    model_server: ModelServer, project: Path
) -> None:
    seed(project)
    model_server.enqueue(text('[{"pair": 1, "reason": "pnpm versus npm for installs"}]'))
    env = {"WAVE_FAST_MODEL": "fast-model"}
    proc = run_wave("memory", "check", "--json", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr
    (request,) = model_server.requests  # one batched request
    assert request.body["model"] == "fast-model"
    asked = request.body["messages"][-1]["content"]
    assert "pnpm install" in asked and "kitchen" not in asked
    (found,) = json.loads(proc.stdout)
    assert {found["a"]["id"], found["b"]["id"]} == {"project:AGENTS.md#1", "auto:deps.md"}
    assert found["reason"] == "pnpm versus npm for installs"
    assert {found["a"]["scope"], found["b"]["scope"]} == {"project", "auto"}
    assert "npm install" in found["a"]["text"] + found["b"]["text"]
    # Saved: the listing marks both sides until one is edited.
    listing = {
        e["id"]: e for e in json.loads(run_wave("memory", "list", "--json", cwd=project).stdout)
    }
    assert listing["auto:deps.md"]["conflicts"] == [
        "project:AGENTS.md#1: pnpm versus npm for installs"
    ]
    memory = WavePaths.for_workdir(project).memory_dir
    (memory / "deps.md").write_text(TOPIC.replace("never pnpm", "or pnpm"))
    listing = {
        e["id"]: e for e in json.loads(run_wave("memory", "list", "--json", cwd=project).stdout)
    }
    assert "conflicts" not in listing["auto:deps.md"]


@pytest.mark.req("MM2")
def test_no_candidates_means_no_request_and_exit_zero(
    model_server: ModelServer, project: Path
) -> None:
    (project / "AGENTS.md").write_text("- Use tabs\n- The kitchen closes at five\n")
    proc = run_wave("memory", "check", "--json", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [] and model_server.requests == []
    plain = run_wave("memory", "check", cwd=project, server=model_server)
    assert plain.returncode == 0 and "No contradictions found." in plain.stdout
