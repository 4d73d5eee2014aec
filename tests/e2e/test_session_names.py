"""Session names and sessions of other projects, on real `wave` runs: `wave sessions rename`,
`/rename` in a script, names in `wave sessions list` (text and JSON), `--resume NAME` (two
sessions of one name: one line listing them, exit 2), `wave sessions list --all`, and
`--resume ID -p` from another project's folder (refused with one line naming the project)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave

pytestmark = pytest.mark.req("FH11")


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def turn(project: Path, server: ModelServer, prompt: str, *extra: str) -> str:
    server.enqueue(text("done"))
    proc = run_wave("-p", prompt, "--output-format", "json", *extra, cwd=project, server=server)
    assert proc.returncode == 0, proc.stderr
    session: str = json.loads(proc.stdout)["session_id"]
    return session


def sessions(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_wave("sessions", *args, cwd=project)


def listed(project: Path, *args: str) -> list[dict[str, object]]:
    proc = sessions(project, "list", "--json", *args)
    assert proc.returncode == 0, proc.stderr
    rows: list[dict[str, object]] = json.loads(proc.stdout)
    return rows


def test_a_renamed_session_is_listed_by_name_and_resumed_by_it(
    model_server: ModelServer, project: Path
) -> None:
    sid = turn(project, model_server, "fix the parser")
    other = turn(project, model_server, "something else")
    renamed = sessions(project, "rename", sid[:8], "  Parser\n  fix  ")
    assert renamed.returncode == 0, renamed.stderr
    rows = {r["id"]: r for r in listed(project)}
    assert rows[sid]["name"] == "Parser fix"  # one line, trimmed
    assert rows[other]["name"] is None
    text_list = sessions(project, "list").stdout
    assert f"{sid}  " in text_list and "[Parser fix] fix the parser" in text_list

    assert turn(project, model_server, "go on", "--resume", "parser FIX") == sid
    # The next request carried the named conversation.
    assert "fix the parser" in json.dumps(model_server.requests[-1].body["messages"])


def test_rename_in_a_script_names_the_session_it_runs_in(
    model_server: ModelServer, project: Path
) -> None:
    sid = turn(project, model_server, "first")
    proc = run_wave("-p", "/rename Release notes", "--resume", sid, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "Release notes" in proc.stdout
    assert [r["name"] for r in listed(project) if r["id"] == sid] == ["Release notes"]


def test_an_empty_name_is_refused_with_one_line(model_server: ModelServer, project: Path) -> None:
    sid = turn(project, model_server, "first")
    proc = sessions(project, "rename", sid, "   ")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "empty" in proc.stderr


def test_a_name_two_sessions_share_is_one_line_listing_both(
    model_server: ModelServer, project: Path
) -> None:
    first = turn(project, model_server, "one")
    second = turn(project, model_server, "two")
    for sid in (first, second):
        assert sessions(project, "rename", sid, "Same").returncode == 0
    proc = run_wave("-p", "hi", "--resume", "same", cwd=project, server=model_server)
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and first[:8] in line and second[:8] in line


def test_every_project_is_listed_and_a_script_is_told_where_a_session_lives(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "other project"
    elsewhere.mkdir()
    here_sid = turn(project, model_server, "here")
    there_sid = turn(elsewhere, model_server, "there")
    assert sessions(elsewhere, "rename", there_sid, "Far away").returncode == 0

    assert [r["id"] for r in listed(project)] == [here_sid]  # this project only
    rows = {r["id"]: r for r in listed(project, "--all")}
    assert rows[here_sid]["project"] == str(project.resolve())
    assert rows[there_sid]["project"] == str(elsewhere.resolve())
    assert rows[there_sid]["name"] == "Far away"
    assert str(elsewhere.resolve()) in sessions(project, "list", "--all").stdout

    for given in (there_sid, "Far away"):
        proc = run_wave("-p", "hi", "--resume", given, cwd=project, server=model_server)
        assert proc.returncode == 2
        line = proc.stderr.strip()
        assert "\n" not in line and str(elsewhere.resolve()) in line and there_sid in line
    # From its own folder it resumes.
    assert turn(elsewhere, model_server, "again", "--resume", there_sid) == there_sid


def test_the_app_opens_another_projects_session_in_its_folder_and_says_so(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    from wave_tui.cli.main import build_parser
    from wave_tui.cli.sessions_cmd import resolve_resume
    from wave_tui.config.paths import WavePaths

    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    there_sid = turn(elsewhere, model_server, "there")
    args = build_parser().parse_args(["--resume", there_sid[:8]])  # the app: no -p
    problem, folder = resolve_resume(args, WavePaths.for_workdir(project))
    assert (problem, folder) == (None, elsewhere.resolve())
    assert args.resume == there_sid
    assert str(elsewhere.resolve()) in args.resume_notice
