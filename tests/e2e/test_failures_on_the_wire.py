"""`wave -p` after a failure: what reaches the model next, what the user is told, the exit code
(CV4, the per-turn request cap, AC3 retries and unreachable endpoints, the Ollama probe)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.model_server import ModelServer, error, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import texts


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """No extraction fork adds requests after a turn: the request log is the turn's own."""
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.mark.req("CV4")
def test_cv4_a_failed_prompt_is_not_replayed_by_continue(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    model_server.enqueue(error(400, "this model is busy being refused"))
    failed = run_wave("-p", "the failed prompt", cwd=project, server=model_server)
    assert failed.returncode == 1 and "HTTP 400" in failed.stderr
    model_server.enqueue(text("answered"))
    proc = run_wave("-p", "the next prompt", "--continue", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "answered\n"
    assert texts(model_server.last_request.body["messages"][1:], "user") == ["the next prompt"]
    (transcript,) = isolated_home.glob(".wave/projects/*/*.jsonl")
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    marker = next(m for m in lines if "failedPrompt" in m.get("meta", {}))
    assert [m["content"] for m in lines if m["id"] in marker["meta"]["failedPrompt"]] == [
        "the failed prompt"
    ]


def test_the_per_turn_request_cap_exits_1_with_error_max_turns(
    model_server: ModelServer, project: Path
) -> None:
    """The real cap (200 requests): a model that never stops calling tools."""
    model_server.default_reply = tool_call("NoSuchTool", {})
    proc = run_wave(
        "-p", "go", "--output-format", "json", cwd=project, server=model_server, timeout=300
    )
    assert proc.returncode == 1, proc.stderr
    assert len(model_server.requests) == 200
    assert "stopped after 200 model requests, the limit for one turn" in proc.stderr
    result = json.loads(proc.stdout)
    assert result["subtype"] == "error_max_turns" and result["is_error"] is True
    assert result["num_turns"] == 200


@pytest.mark.req("AC3")
def test_ac3_a_rate_limit_retry_is_said_on_stderr(model_server: ModelServer, project: Path) -> None:
    model_server.enqueue(error(429, retry_after=0), text("after the wait"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "after the wait\n"
    assert proc.stderr.splitlines() == ["wave: rate limited — retrying in 0s"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.req("AC3")
def test_ac3_an_unreachable_endpoint_is_named(project: Path) -> None:
    port = _closed_port()
    env = {
        "WAVE_BASE_URL": f"http://127.0.0.1:{port}/v1?api-version=1",
        "WAVE_API_KEY": "k",
        "WAVE_MODEL": "m",
    }
    proc = run_wave("-p", "hi", cwd=project, env=env)
    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert line.startswith(
        f"wave: cannot reach the model endpoint http://127.0.0.1:{port}/v1/chat/completions "
        "after 4 attempts:"
    )


@pytest.mark.req("PV11")
def test_pv11_a_plain_endpoint_is_never_probed_for_ollama(
    model_server: ModelServer, project: Path
) -> None:
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert model_server.hits == [("POST", "/v1/chat/completions")]


@pytest.mark.req("PV11")
@pytest.mark.parametrize("said_by", ["settings file", "environment"])
def test_pv11_the_provider_setting_says_ollama_where_the_port_cannot(
    model_server: ModelServer, project: Path, said_by: str
) -> None:
    """`provider: ollama` (or WAVE_PROVIDER) on a port of the user's choosing: the window is
    asked of `/api/show` before the turn; the settings file does not call the key unknown."""
    env = {}
    if said_by == "environment":
        env["WAVE_PROVIDER"] = "ollama"
    else:
        (project / ".wave").mkdir(exist_ok=True)
        (project / ".wave" / "settings.json").write_text(json.dumps({"provider": "ollama"}))
    proc = run_wave("-p", "hi", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr
    assert ("POST", "/api/show") in model_server.hits
    assert "unknown key" not in proc.stderr
