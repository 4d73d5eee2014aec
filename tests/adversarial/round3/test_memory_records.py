"""Tampered memory records and secrets on every memory write path: a run record or inbox item
naming a path outside the memory folder is refused before `wave memory revert` / `accept` act,
malformed records cost one line not a traceback, and no write path saves a credential."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths

VICTIM = "precious\n"


def plant_run(project: Path, changes: list[dict[str, object]], run_id: str = "run1") -> Path:
    paths = WavePaths.for_workdir(project)
    folder = paths.project_dir / "extractions"
    folder.mkdir(parents=True, exist_ok=True)
    (paths.memory_dir).mkdir(parents=True, exist_ok=True)
    record = {"kind": "extraction", "started_at": 1.0, "session_id": "s", "changes": changes}
    (folder / f"{run_id}.json").write_text(json.dumps(record))
    return paths.memory_dir


def outside_targets(project: Path, memory: Path) -> dict[str, str]:
    home = Path.home()
    return {
        "absolute": str(home / ".bashrc"),
        "dotdot": str(memory / ".." / ".." / ".." / ".bashrc"),
        "tilde": "~/.bashrc",
        "project": str(project / "AGENTS.md"),
        "link": str(memory / "link" / "x.md"),
    }


@pytest.mark.parametrize("kind", ["absolute", "dotdot", "tilde", "project", "link"])
@pytest.mark.parametrize("action", ["overwrite", "delete", "create"])
def test_a_tampered_run_record_cannot_make_revert_touch_files_outside_memory(
    project: Path, kind: str, action: str
) -> None:
    memory = plant_run(project, [])
    (memory / "link").symlink_to(Path.home(), target_is_directory=True)
    target = outside_targets(project, memory)[kind]
    real = Path(target.replace("~", str(Path.home()), 1)).resolve()
    if kind == "link":
        real = Path.home() / "x.md"
    if action != "create":
        real.write_text(VICTIM)
    change = {
        "overwrite": {"path": target, "before": "owned\n", "after": VICTIM},
        "delete": {"path": target, "before": None, "after": VICTIM},
        "create": {"path": target, "before": "owned\n", "after": None},
    }[action]
    plant_run(project, [change])
    result = run_wave("memory", "revert", "run1", cwd=project)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    if action == "create":
        assert not real.exists()
    else:
        assert real.read_text() == VICTIM


@pytest.mark.parametrize(
    "record",
    [
        {"started_at": "yesterday", "changes": []},
        {"changes": [{"path": 5}]},
        {"changes": [{"path": "/x", "before": 5, "after": ["a"]}]},
        {"changes": "all"},
        ["not", "an", "object"],
    ],
    ids=["bad-time", "bad-path", "bad-text", "bad-changes", "not-object"],
)
def test_malformed_records_cost_one_line_not_a_traceback(project: Path, record: object) -> None:
    paths = WavePaths.for_workdir(project)
    for folder in ("extractions", "inbox"):
        (paths.project_dir / folder).mkdir(parents=True, exist_ok=True)
        (paths.project_dir / folder / "bad.json").write_text(json.dumps(record))
    for args in (["runs"], ["runs", "--diff"], ["inbox"], ["revert", "bad"], ["accept", "bad"]):
        result = run_wave("memory", *args, cwd=project)
        assert "Traceback" not in result.stderr, (args, result.stderr)


def plant_item(project: Path, path: str, after: str) -> None:
    paths = WavePaths.for_workdir(project)
    folder = paths.project_dir / "inbox"
    folder.mkdir(parents=True, exist_ok=True)
    paths.memory_dir.mkdir(parents=True, exist_ok=True)
    item = {"path": path, "relative": "x.md", "before": None, "after": after, "created_at": 1.0}
    (folder / "item1.json").write_text(json.dumps(item))


@pytest.mark.parametrize("kind", ["absolute", "dotdot", "tilde", "project"])
def test_a_tampered_inbox_item_is_not_accepted(project: Path, kind: str) -> None:
    memory = WavePaths.for_workdir(project).memory_dir
    memory.mkdir(parents=True, exist_ok=True)
    target = outside_targets(project, memory)[kind]
    plant_item(project, target, "alias ls='rm -rf ~'\n")
    result = run_wave("memory", "accept", "item1", cwd=project)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    real = Path(target.replace("~", str(Path.home()), 1)).resolve()
    assert not real.exists()


SECRETS = {
    "private-key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n",
    "aws-key-id": "deploy with AKIAIOSFODNN7EXAMPLE\n",
    "env-password": "DB_PASSWORD=hunter2hunter2\n",
    "env-aws-secret": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
    "stripe": "billing uses sk_live_4eC39HqLyjWDarjtT1zdp7dc\n",
}


def test_an_inbox_item_holding_a_secret_is_not_accepted(project: Path) -> None:
    memory = WavePaths.for_workdir(project).memory_dir
    plant_item(project, str(memory / "notes.md"), SECRETS["env-password"])
    result = run_wave("memory", "accept", "item1", cwd=project)
    assert result.returncode != 0 and not (memory / "notes.md").exists()


def memory_targets(project: Path) -> dict[str, Path]:
    return {
        "AGENTS.md": project / "AGENTS.md",
        "AGENTS.local.md": project / "AGENTS.local.md",
        "nested CLAUDE.md": project / "pkg" / "CLAUDE.md",
        "rule": project / ".wave" / "rules" / "deploy.md",
        "user AGENTS.md": Path.home() / ".wave" / "AGENTS.md",
        "team memory": project / ".wave" / "memory" / "deploy.md",
    }


@pytest.mark.parametrize("secret", SECRETS.keys())
@pytest.mark.parametrize(
    "where",
    ["AGENTS.md", "AGENTS.local.md", "nested CLAUDE.md", "rule", "user AGENTS.md", "team memory"],
)
def test_no_write_into_a_memory_file_saves_a_secret(
    model_server: ModelServer, project: Path, where: str, secret: str
) -> None:
    target = memory_targets(project)[where]
    target.parent.mkdir(parents=True, exist_ok=True)
    model_server.enqueue(
        tool_call("Write", {"file_path": str(target), "content": f"# Notes\n{SECRETS[secret]}"}),
        text("done"),
    )
    result = run_wave(
        "-p", "save it", "--permission-mode", "bypassPermissions", cwd=project, server=model_server
    )
    assert result.returncode == 0, result.stderr
    assert not target.exists()


def test_a_key_assembled_over_two_edits_is_refused(
    model_server: ModelServer, project: Path
) -> None:
    agents = project / "AGENTS.md"
    agents.write_text("# Notes\nkey: AKIAIOSF\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": str(agents)}),
        tool_call(
            "Edit",
            {"file_path": str(agents), "old_string": "AKIAIOSF", "new_string": "AKIAIOSFODNN"},
        ),
        tool_call(
            "Edit",
            {
                "file_path": str(agents),
                "old_string": "AKIAIOSFODNN",
                "new_string": "AKIAIOSFODNN7EXAMPLE",
            },
        ),
        text("done"),
    )
    result = run_wave(
        "-p", "edit", "--permission-mode", "acceptEdits", cwd=project, server=model_server
    )
    assert result.returncode == 0, result.stderr
    assert "AKIAIOSFODNN7EXAMPLE" not in agents.read_text()


@pytest.mark.parametrize("secret", ["env-password", "env-aws-secret", "stripe"])
def test_wave_memory_add_refuses_env_style_secrets(project: Path, secret: str) -> None:
    result = run_wave("memory", "add", "--scope", "project", SECRETS[secret].strip(), cwd=project)
    assert result.returncode != 0
    agents = project / "AGENTS.md"
    assert not agents.exists() or SECRETS[secret].strip() not in agents.read_text()


@pytest.mark.parametrize(
    "clean", ["DB_PASSWORD=${DB_PASSWORD}", "the token lives in DEPLOY_TOKEN", "PASSWORD=<yours>"]
)
def test_references_to_secrets_are_still_saved(project: Path, clean: str) -> None:
    result = run_wave("memory", "add", "--scope", "project", clean, cwd=project)
    assert result.returncode == 0, result.stderr
    assert clean in (project / "AGENTS.md").read_text()
