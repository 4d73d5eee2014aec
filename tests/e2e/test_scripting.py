"""Headless scripting flags of `wave -p`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import WAVE, run_wave
from tests.wire_view import chats, dynamic_block, static_block
from wave_tui import __version__

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.mark.req("HL1")
def test_hl1_version_prints_and_imports_neither_the_app_nor_http(project: Path) -> None:
    proc = run_wave("--version", cwd=project)
    assert proc.returncode == 0 and proc.stdout == f"wave {__version__}\n"
    probe = (
        "import sys; from wave_tui.cli.main import main; code = main(['--version']); "
        "print(sorted(m for m in ('textual', 'httpx', 'wave_tui.agent.service', 'wave_tui.tui') "
        "if m in sys.modules), code)"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=project
    )
    assert out.stdout.splitlines()[-1] == "[] 0", out.stderr


@pytest.mark.req("HL2")
def test_hl2_json_is_one_result_object(model_server: ModelServer, project: Path) -> None:
    (project / "a.txt").write_text("alpha\n")
    model_server.enqueue(tool_call("Read", {"file_path": "a.txt"}), text("It says alpha."))
    proc = run_wave("-p", "read a.txt", "--output-format", "json", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)  # exactly one object: a second one would not parse
    assert result["type"] == "result" and result["subtype"] == "success"
    assert result["is_error"] is False and result["result"] == "It says alpha."
    assert result["num_turns"] == 2
    assert isinstance(result["duration_ms"], int) and result["duration_ms"] >= 0
    assert result["session_id"]
    requests = [r for r in model_server.requests if r.path.endswith("/chat/completions")]
    assert result["usage"]["input_tokens"] == sum(r.prompt_tokens for r in requests)
    assert result["usage"]["cache_read_input_tokens"] == sum(r.cached_tokens for r in requests)
    assert result["usage"]["output_tokens"] > 0


@pytest.mark.req("HL3")
def test_hl3_stream_json_lines_in_order(model_server: ModelServer, project: Path) -> None:
    model_server.enqueue(tool_call("Glob", {"pattern": "*"}, "call_1"), text("Nothing here."))
    proc = run_wave(
        "-p", "look", "--output-format", "stream-json", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [x["type"] for x in lines] == ["system", "assistant", "user", "assistant", "result"]
    init = lines[0]
    assert init["subtype"] == "init" and init["model"] == "test-model"
    assert init["cwd"] == str(project.resolve())
    assert init["tools"] == [
        "Read", "Write", "Edit", "Glob", "Grep", "Bash",
        "TaskCreate", "TaskGet", "TaskUpdate", "TaskList", "BashOutput", "TaskOutput",
        "TaskStop", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "WebFetch", "Agent",
        "Skill", "EnterWorktree", "ExitWorktree", "Workflow",
    ]  # fmt: skip
    assert init["session_id"] == lines[-1]["session_id"]
    use = lines[1]["message"]["content"][0]
    assert use["type"] == "tool_use" and use["name"] == "Glob" and use["id"] == "call_1"
    assert lines[2]["message"]["content"][0]["tool_use_id"] == "call_1"
    assert lines[3]["message"]["content"] == [{"type": "text", "text": "Nothing here."}]
    assert lines[-1]["result"] == "Nothing here." and lines[-1]["num_turns"] == 2


@pytest.mark.req("AC1", "HL3")
def test_hl3_stdin_prompt_works_with_every_format(model_server: ModelServer, project: Path) -> None:
    """AC1: hl3 stdin prompt works with every format."""
    for fmt in ("text", "json", "stream-json"):
        model_server.enqueue(text(f"hi {fmt}"))
        proc = subprocess.run(
            [*WAVE, "-p", "--output-format", fmt],
            input="hello from stdin",
            capture_output=True,
            text=True,
            cwd=project,
            env={**model_server.env(), "PYTHONPATH": str(ROOT)},
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert f"hi {fmt}" in proc.stdout
        last = model_server.requests[-1].body["messages"][-1]
        assert last["role"] == "user" and "hello from stdin" in str(last["content"])


@pytest.mark.req("HL2")
def test_hl2_unknown_output_format_is_a_usage_error(project: Path) -> None:
    proc = run_wave("-p", "hi", "--output-format", "yaml", cwd=project)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "--output-format" in proc.stderr


@pytest.mark.req("HL6")
def test_hl6_max_turns_stops_with_error_max_turns(model_server: ModelServer, project: Path) -> None:
    model_server.enqueue(tool_call("Glob", {"pattern": "*"}), text("never asked"))
    proc = run_wave(
        "-p", "go", "--max-turns", "1", "--output-format", "json", cwd=project, server=model_server
    )
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    assert result["subtype"] == "error_max_turns" and result["is_error"] is True
    assert result["num_turns"] == 1
    assert len(chats(model_server)) == 1


@pytest.mark.req("HL6")
def test_hl6_max_turns_must_be_positive(project: Path) -> None:
    proc = run_wave("-p", "go", "--max-turns", "0", cwd=project)
    assert proc.returncode == 2 and "--max-turns" in proc.stderr


@pytest.mark.req("HL5")
def test_hl5_append_system_prompt_goes_into_the_dynamic_block(
    model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(text("ok"), text("ok"))
    assert run_wave("-p", "hi", cwd=project, server=model_server).returncode == 0
    proc = run_wave(
        "-p", "hi", "--append-system-prompt", "Answer in haiku.", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    plain, appended = chats(model_server)
    assert static_block(appended) == static_block(plain)  # the static block is byte-stable
    assert "Answer in haiku." in dynamic_block(appended)
    assert "Answer in haiku." not in dynamic_block(plain)


@pytest.mark.req("HL4")
def test_hl4_allowed_tools_allow_and_disallowed_tools_deny(
    model_server: ModelServer, project: Path
) -> None:
    (project / "a.txt").write_text("alpha\n")
    model_server.enqueue(
        tool_call("Bash", {"command": "touch made.txt"}),
        tool_call("Read", {"file_path": "a.txt"}),
        text("done"),
    )
    proc = run_wave(
        "-p",
        "go",
        "--allowedTools",
        "Glob,Bash(touch *)",
        "--disallowedTools",
        "Read",
        cwd=project,
        server=model_server,
    )
    assert proc.returncode == 0, proc.stderr
    assert (project / "made.txt").exists()
    read_result = chats(model_server)[-1]["messages"][-1]  # type: ignore[index]
    assert "Permission denied" in read_result["content"] and "alpha" not in read_result["content"]
