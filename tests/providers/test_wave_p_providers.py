"""A realistic `wave -p` tool-using turn against each provider emulator:
the second request of the turn carries the tool result and must not be refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.providers import providers
from tests.providers.emulator import Call, Emulator, call, running, say
from tests.wave_cli import run_wave

CASES: dict[str, tuple[Callable[[], Emulator], dict[str, str]]] = {
    "deepseek": (providers.deepseek, {}),
    "kimi": (providers.deepseek, {"WAVE_MODEL": "kimi-k2-thinking"}),
    "mistral": (providers.mistral, {}),
    "groq": (providers.groq, {}),
    "ollama": (providers.ollama, {}),
    "lm-studio": (providers.lm_studio, {}),
    "openai-o3": (
        providers.openai_reasoning,
        {"WAVE_MODEL": "o3", "WAVE_MAX_OUTPUT_TOKENS": "900"},
    ),
    # A 16k max_model_len: the session's full tool set and the extraction prompt leave
    # an 8k window too little room for the fork's reply; the first refusal is still provoked.
    "vllm": (lambda: providers.vllm(window=16384), {"WAVE_MAX_OUTPUT_TOKENS": "16000"}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_pv_wave_p_tool_turn_passes_against_each_provider(name: str, project: Path) -> None:
    factory, extra = CASES[name]
    (project / "a.txt").write_text("alpha\n")
    with running(factory()) as em:
        em.script(
            call(Call("Read", {"file_path": "a.txt"}, id="call_r1"), reasoning="read it first"),
            say("It says alpha.", reasoning="done"),
        )
        proc = run_wave("-p", "what is in a.txt?", cwd=project, env=em.env(**extra))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "It says alpha.\n"
    # vLLM states its window in its first refusal; the client clamps every later request
    assert len(em.rejected) <= (1 if name == "vllm" else 0), em.rejected
    second = em.chats()[-1]
    assert any(m["role"] == "tool" and "alpha" in json.dumps(m) for m in second.messages)


@pytest.mark.req("PV7")
def test_pv7_wave_p_against_azure_with_query_and_api_key_header(project: Path) -> None:
    (project / "a.txt").write_text("alpha\n")
    with running(providers.azure()) as em:
        em.script(call(Call("Read", {"file_path": "a.txt"})), say("It says alpha."))
        env = em.env(
            WAVE_BASE_URL=em.origin + "/openai/deployments/gpt4o?api-version=2024-10-21",
            WAVE_CUSTOM_HEADERS=json.dumps({"api-key": "azure-secret"}),
        )
        proc = run_wave("-p", "what is in a.txt?", cwd=project, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "It says alpha.\n" and em.rejected == []
    chats = em.chats()  # the turn's two requests, and the extraction fork's
    assert len(chats) >= 2
    assert all(c.headers["api-key"] == "azure-secret" for c in chats)


@pytest.mark.req("PV12")
def test_pv12_wave_p_names_the_fix_for_a_server_without_tool_support(project: Path) -> None:
    with running(Emulator(rules=[providers.vllm_no_auto_tools])) as em:
        proc = run_wave("-p", "hi", cwd=project, env=em.env())
    assert proc.returncode != 0
    assert "--enable-auto-tool-choice" in proc.stderr
    assert "Traceback" not in proc.stderr and len(em.chats()) == 1


@pytest.mark.req("X14")
@pytest.mark.parametrize(
    "base_url", ["http://127.0.0.1:9/v1 extra", "ftp://example.invalid/v1", "http:///v1"]
)
def test_x14_a_malformed_base_url_is_a_configuration_error_at_once(
    base_url: str, project: Path
) -> None:
    proc = run_wave("-p", "hi", cwd=project, env={"WAVE_BASE_URL": base_url, "WAVE_MODEL": "m"})
    assert proc.returncode != 0
    assert "misconfigured" in proc.stderr and "cannot reach" not in proc.stderr
    assert "Traceback" not in proc.stderr
