"""`wave memory list|show|delete|add` through run_memory_command (M3, M4)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from wave_tui.cli.memory_cmd import run_memory_command
from wave_tui.config.paths import WavePaths


def clock() -> datetime:
    return datetime(2026, 8, 20, tzinfo=UTC)


@pytest.fixture
def paths(project: Path) -> WavePaths:
    p = WavePaths.for_workdir(project)
    p.project_agents_md.write_text("- Use pnpm\n- Keep PRs small\n", encoding="utf-8")
    rule = p.project_root / ".wave/rules/api.md"
    rule.parent.mkdir(parents=True)
    rule.write_text("---\npaths: src/api/**\n---\nAPI rule body.\n", encoding="utf-8")
    return p


def run(paths: WavePaths, *argv: str) -> int:
    return run_memory_command(list(argv), paths, clock)


@pytest.mark.req("M3")
def test_m3_list_json(paths: WavePaths, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(paths, "list", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["id"] for d in data] == [
        "project:AGENTS.md#1",
        "project:AGENTS.md#2",
        "rule:project:api.md",
    ]
    assert data[0]["scope"] == "project" and data[0]["title"] == "Use pnpm"
    assert data[0]["type"] is None and data[0]["age_days"] == 0
    assert data[2]["status"] == "conditional" and data[2]["reason"] == "conditional: src/api/**"


@pytest.mark.req("M3")
def test_m3_list_table_grouped_by_scope(
    paths: WavePaths, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(paths, "list") == 0
    out = capsys.readouterr().out
    assert out.index("Project memory") < out.index("project:AGENTS.md#1") < out.index("Rules")
    assert "conditional: src/api/**" in out


def test_show_prints_body(paths: WavePaths, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(paths, "show", "rule:project:api.md") == 0
    assert capsys.readouterr().out == "API rule body.\n"


@pytest.mark.req("M3")
def test_m3_delete(paths: WavePaths, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(paths, "delete", "project:AGENTS.md#1") == 0
    assert "Use pnpm" in capsys.readouterr().out
    assert paths.project_agents_md.read_text(encoding="utf-8") == "- Keep PRs small\n"


def test_unknown_id_exit_1_one_line(paths: WavePaths, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(paths, "show", "nope") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err and "Traceback" not in err


@pytest.mark.req("M1", "M2")
def test_m1_m2_add_project_and_user(paths: WavePaths, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(paths, "add", "--scope", "user", "Prefer", "short", "answers") == 0
    assert paths.user_agents_md.read_text(encoding="utf-8") == "- Prefer short answers\n"
    assert run(paths, "add", "--scope", "project", "Deploy with make ship") == 0
    assert paths.project_agents_md.read_text(encoding="utf-8").endswith("- Deploy with make ship\n")
    assert str(paths.user_agents_md) in capsys.readouterr().out


@pytest.mark.req("M4")
def test_m4_add_duplicate_warns_exit_0(
    paths: WavePaths, capsys: pytest.CaptureFixture[str]
) -> None:
    before = paths.project_agents_md.read_bytes()
    assert run(paths, "add", "--scope", "project", "use PNPM.") == 0
    assert "already saved: Use pnpm" in capsys.readouterr().err
    assert paths.project_agents_md.read_bytes() == before


def test_bad_arguments_exit_2_without_traceback(
    paths: WavePaths, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(paths, "add", "--scope", "team", "x") == 2
    assert "Traceback" not in capsys.readouterr().err
