"""Provider quirks wired into the loop, against the provider emulators (real HTTP): PV9–PV12."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.providers import providers
from tests.providers.emulator import Emulator, Rejection, Seen, running, say
from tests.wave_cli import run_wave
from wave_tui.agent import events as ev
from wave_tui.agent.turn_runner import OVERFLOW_NOTICE, REPLY_CUT
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("CV11")

MARKER = "OLD-HISTORY-MARKER"


def _session(project: Path, em: Emulator, **env: str) -> tuple[AgentSession, list[ev.Notice]]:
    options = AgentOptions(workdir=project, environ=em.env(WAVE_DISABLE_AUTO_MEMORY="1", **env))
    session = create_session(options)
    notices: list[ev.Notice] = []
    session.subscribe(lambda e: notices.append(e) if isinstance(e, ev.Notice) else None)
    return session, notices


LLAMACPP_CTX = 12_000
PADDING = "padding " * 4000  # ~8,000 tokens: with the instructions, over LLAMACPP_CTX


def _llamacpp_overflow(armed: list[bool]) -> Any:
    """llama.cpp's refusal, for a main request (it has tools) still holding the old history;
    its numbers are the request's own size and a window it overflows (CV11 learns from them)."""

    def rule(seen: Seen) -> Rejection | None:
        prompt = providers.vllm_prompt_tokens(seen)
        overflow = prompt > LLAMACPP_CTX and MARKER in json.dumps(seen.messages)
        if armed and seen.body.get("tools") and overflow:
            return 400, {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": prompt,
                    "n_ctx": LLAMACPP_CTX,
                }
            }
        return None

    return rule


@pytest.mark.req("PV10", "PV11")
async def test_pv11_a_context_length_error_compacts_and_retries_once(project: Path) -> None:
    armed: list[bool] = []
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"models": {"m": {"options": {"top_p": 0.5}}}}))
    with running(Emulator(rules=[_llamacpp_overflow(armed)])) as em:
        em.script(say("one"), say("two"), say("three"))
        session, notices = _session(project, em)
        try:
            session.start()
            for prompt in (f"{MARKER} first {PADDING}", "second", "third"):
                assert (await session.run_turn(prompt)).status == "completed"
            armed.append(True)
            em.script(say("Summary of the earlier work."), say("four"))
            result = await session.run_turn("fourth")
        finally:
            await session.close()
    assert result.status == "completed" and result.text == "four"
    assert len(em.rejected) == 1
    chats = em.chats()
    summary, retry = chats[-2], chats[-1]
    assert "tools" not in summary.body and MARKER in json.dumps(summary.messages)
    assert summary.body["top_p"] == 0.5  # req: PV10 — the model's options on the summary
    assert MARKER not in json.dumps(retry.messages)
    assert "Summary of the earlier work." in json.dumps(retry.messages)
    assert OVERFLOW_NOTICE in [n.text for n in notices]


@pytest.mark.req("PV11")
async def test_pv11_a_second_overflow_after_compaction_is_one_clear_error(project: Path) -> None:
    with running(Emulator(rules=[providers.llamacpp_context])) as em:
        em.script(say("one"), say("two"))
        session, _ = _session(project, em)
        try:
            session.start()
            assert (await session.run_turn("short")).status == "completed"
            assert (await session.run_turn("short again")).status == "completed"
            em.script(say("Summary."))
            result = await session.run_turn("word " * 12000)
        finally:
            await session.close()
    assert result.status == "error"
    assert result.error is not None and "context size" in result.error
    # A 2,048-token window holds less than the instructions and tools: no compaction is tried.
    assert len(em.rejected) == 1 and "too small" in result.error


@pytest.mark.req("PV11")
async def test_pv11_ollama_num_ctx_is_the_window_and_a_too_big_memory_warns_once(
    project: Path,
) -> None:
    (project / "AGENTS.md").write_text("Project rule. " * 3000)  # ~10k tokens > num_ctx 8192
    with running(providers.ollama()) as em:
        em.script(say("hi"), say("again"))
        session, notices = _session(project, em)
        try:
            session.start()
            await session.run_turn("hello")
            await session.run_turn("hello again")
            status = session.status()
        finally:
            await session.close()
    assert status.context_window == 8192
    warnings = [n.text for n in notices if "num_ctx" in n.text]
    assert len(warnings) == 1 and "8192" in warnings[0]
    assert len([r for r in em.requests if r.path == "/api/show"]) == 1


@pytest.mark.req("PV9")
async def test_pv9_no_usage_from_the_endpoint_marks_the_status_estimated(project: Path) -> None:
    with running(providers.lm_studio()) as em:
        em.script(say("hi"))
        session, _ = _session(project, em)
        try:
            session.start()
            assert session.status().context_estimated is False
            await session.run_turn("hello")
            status = session.status()
        finally:
            await session.close()
    assert status.context_estimated is True and (status.context_tokens or 0) > 0


@pytest.mark.req("PV9")
def test_pv9_wave_p_json_usage_says_estimated(project: Path) -> None:
    with running(providers.lm_studio()) as em:
        em.script(say("hi"))
        proc = run_wave(
            "-p",
            "hello",
            "--output-format",
            "json",
            cwd=project,
            env=em.env(WAVE_DISABLE_AUTO_MEMORY="1"),
        )
    assert proc.returncode == 0, proc.stderr
    usage = json.loads(proc.stdout)["usage"]
    assert usage["estimated"] is True and usage["input_tokens"] > 0


@pytest.mark.req("PV12")
def test_pv12_wave_p_says_a_cut_reply_was_cut_on_stderr(project: Path) -> None:
    with running(Emulator()) as em:
        em.script(say("half an ans", finish_reason="length"))
        proc = run_wave("-p", "hello", cwd=project, env=em.env(WAVE_DISABLE_AUTO_MEMORY="1"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "half an ans\n"
    assert [line for line in proc.stderr.splitlines() if REPLY_CUT in line] == [
        f"wave: warning: {REPLY_CUT}"
    ]


@pytest.mark.req("X14")
async def test_x14_first_byte_timeout_from_settings_reaches_the_client(project: Path) -> None:
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"firstByteTimeout": 7.5}))
    with running(Emulator()) as em:
        session, _ = _session(project, em)
        try:
            assert session.service is not None
            assert session.service.client().config.first_byte_timeout_s == 7.5
        finally:
            await session.close()
