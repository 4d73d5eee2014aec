"""`wave context [--json]`: the next request's cost per source, as the contract fixes it (MX2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.wave_cli import run_wave

KINDS = {
    "system_static",
    "system_dynamic",
    "memory_index",
    "agents_md",
    "user_agents_md",
    "rule",
    "nested",
    "tools",
    "conversation",
}


def context_json(project: Path, **env: str) -> dict:
    proc = run_wave("context", "--json", cwd=project, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.req("MX2")
def test_mx2_context_json_names_every_memory_source(project: Path, isolated_home: Path) -> None:
    (project / "AGENTS.md").write_text("- Use pnpm.\n" * 40)
    (project / ".wave/rules").mkdir(parents=True)
    (project / ".wave/rules/style.md").write_text("Tabs, not spaces.\n")
    (project / ".wave/rules/api.md").write_text("---\npaths: src/**\n---\nAPI only.\n")
    (isolated_home / ".wave").mkdir()
    (isolated_home / ".wave/AGENTS.md").write_text("- Answer in English.\n")
    report = context_json(project)
    assert {"total_tokens", "window_tokens", "estimated", "sources"} <= report.keys()
    assert report["estimated"] is True and report["window_tokens"] > 0
    sources = report["sources"]
    assert {s["kind"] for s in sources} <= KINDS
    by_name = {(s["kind"], s["name"]): s["tokens"] for s in sources}
    assert by_name[("agents_md", "AGENTS.md")] > by_name[("user_agents_md", "~/.wave/AGENTS.md")]
    assert ("rule", "style.md") in by_name and ("rule", "api.md") not in by_name  # not loaded yet
    assert by_name[("system_static", "static system prompt")] > 0
    assert ("tools", "Read") in by_name and ("memory_index", report_index(sources)) in by_name
    assert ("conversation", "0 messages") in by_name
    assert sum(s["tokens"] for s in sources) <= report["total_tokens"]
    assert report["warning"] is None


def report_index(sources: list[dict]) -> str:
    return next(s["name"] for s in sources if s["kind"] == "memory_index")


@pytest.mark.req("MX2")
def test_mx2_agents_md_cost_grows_with_the_file(project: Path) -> None:
    (project / "AGENTS.md").write_text("- Use pnpm.\n")
    small = context_json(project)
    (project / "AGENTS.md").write_text("- Use pnpm, never npm, and run the linter first.\n" * 200)
    large = context_json(project)
    cost = lambda r: next(s["tokens"] for s in r["sources"] if s["kind"] == "agents_md")  # noqa: E731
    assert cost(large) > 100 * cost(small) / 10
    assert large["total_tokens"] - small["total_tokens"] == cost(large) - cost(small)


@pytest.mark.req("MX2")
def test_mx2_warns_when_memory_takes_too_much_of_the_window(project: Path) -> None:
    (project / "AGENTS.md").write_text("- A long instruction about many things.\n" * 300)
    proc = run_wave("context", cwd=project, env={"WAVE_MAX_INPUT_TOKENS": "8000"})
    assert proc.returncode == 0, proc.stderr
    assert "of a 8,000-token window" in proc.stdout
    assert "warning: memory takes" in proc.stdout and "more than 25%" in proc.stdout
    report = context_json(project, WAVE_MAX_INPUT_TOKENS="8000")
    assert report["window_tokens"] == 8000 and "memory takes" in report["warning"]


@pytest.mark.req("MX2")
def test_context_text_shows_paths_as_the_rest_of_wave_does(
    project: Path, isolated_home: Path
) -> None:
    """The text report names the memory index `~/…` as every other view does (the JSON keeps
    the whole path)."""
    memory = context_json(project)
    index = Path(report_index(memory["sources"]))
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_text("- [Tests](tests.md) — run them with -n 2\n")
    proc = run_wave("context", cwd=project)
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if "memory_index" in line)
    assert f" ~/{index.relative_to(isolated_home).as_posix()} " in row
    assert str(isolated_home) not in proc.stdout
