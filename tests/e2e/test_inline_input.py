"""`wave -p` with `!cmd` and `@path` (UX16): the shell runs at the project root, not as a turn;
an `@path` file reaches the model with the message."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave


@pytest.mark.req("UX16")
def test_ux16_bang_command_runs_in_the_project_and_joins_the_next_turn(
    model_server: ModelServer, project: Path
) -> None:
    (project / "marker.txt").write_text("x", encoding="utf-8")
    done = run_wave("-p", "!ls && echo shell-ran", cwd=project, server=model_server)
    assert done.returncode == 0, done.stderr
    assert "shell-ran" in done.stdout
    assert "marker.txt" in done.stdout
    assert not model_server.requests  # not a model turn
    model_server.enqueue(text("seen it"))
    follow = run_wave("-p", "what did ls show?", "--continue", cwd=project, server=model_server)
    assert follow.returncode == 0, follow.stderr
    users = [m for m in model_server.last_request.body["messages"] if m["role"] == "user"]
    assert any("I ran `ls && echo shell-ran`" in str(m["content"]) for m in users)
    assert any("marker.txt" in str(m["content"]) for m in users)


@pytest.mark.req("UX16")
def test_ux16_at_path_attaches_the_file_to_the_message(
    model_server: ModelServer, project: Path
) -> None:
    (project / "src").mkdir()
    (project / "src" / "config.py").write_text("TIMEOUT = 42\n", encoding="utf-8")
    model_server.enqueue(text("42"))
    done = run_wave(
        "-p", "what is the timeout in @src/config.py?", cwd=project, server=model_server
    )
    assert done.returncode == 0, done.stderr
    users = [m for m in model_server.last_request.body["messages"] if m["role"] == "user"]
    assert any("TIMEOUT = 42" in str(m["content"]) for m in users)


@pytest.mark.req("UX16")
def test_ux16_an_attachment_fires_matching_rules_and_loads_nested_memory_like_a_read(
    model_server: ModelServer, project: Path
) -> None:
    (project / ".wave" / "rules").mkdir(parents=True)
    (project / ".wave" / "rules" / "api.md").write_text(
        "---\npaths: ['src/api/**/*.py']\n---\nAPI-RULE: handlers return typed responses.\n",
        encoding="utf-8",
    )
    (project / "src" / "api").mkdir(parents=True)
    (project / "src" / "api" / "AGENTS.md").write_text("NESTED-API-MEMORY\n", encoding="utf-8")
    (project / "src" / "api" / "users.py").write_text("def get(): ...\n", encoding="utf-8")
    model_server.enqueue(text("ok"))
    done = run_wave("-p", "review @src/api/users.py", cwd=project, server=model_server)
    assert done.returncode == 0, done.stderr
    sent = str(model_server.last_request.body["messages"])
    assert "API-RULE" in sent
    assert "NESTED-API-MEMORY" in sent


@pytest.mark.req("FH10")
def test_a_long_file_attached_in_part_says_so_and_a_folder_is_listed(
    model_server: ModelServer, project: Path
) -> None:
    (project / "big.log").write_text("".join(f"line {i:05d} of the log\n" for i in range(60_000)))
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("x = 1\n")
    (project / "src" / "lib").mkdir()
    model_server.enqueue(text("seen"))
    done = run_wave(
        "-p",
        "look at @big.log and @src/",
        cwd=project,
        server=model_server,
        env={"WAVE_DISABLE_AUTO_MEMORY": "1"},
    )
    assert done.returncode == 0, done.stderr
    (user,) = [m for m in model_server.last_request.body["messages"] if m["role"] == "user"][-1:]
    sent = str(user["content"])
    assert "line 00000 of the log" in sent and "line 59999" not in sent
    assert "… (cut: big.log: only its first 100,000 characters" in sent
    assert "Read it with offset/limit for the rest)" in sent
    assert "app.py\nlib/" in sent  # the folder's entries, sub-folders marked
    warnings = [line for line in done.stderr.splitlines() if "big.log" in line]
    assert len(warnings) == 1 and "only its first 100,000 characters" in warnings[0]
