"""What goes on the wire after an interruption or a failure (CV3–CV5), the per-turn request cap,
retries that say so, and the Ollama probe only where Ollama is: the scripted server's request
log, message by message."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, error, text, tool_call
from tests.providers import providers
from tests.providers.emulator import Call, call, running, say
from wave_tui.agent import events as ev
from wave_tui.agent.prompts import ABORTED_TOOL_RESULT
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.llm.client import ModelClient
from wave_tui.llm.replies import ClientConfig

NOTE = "[Request interrupted by user]"


def sent(server: ModelServer, index: int = -1) -> list[dict[str, Any]]:
    """The messages of one request as they went on the wire, the system prompt left out."""
    return server.requests[index].body["messages"][1:]


def parts(*texts: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": t} for t in texts]


def events_of(service: AgentService) -> list[ev.AgentEvent]:
    seen: list[ev.AgentEvent] = []
    service.subscribe(seen.append)
    return seen


async def until(condition: Any) -> None:
    """Let the loop run until `condition()` holds (the test's own timeout bounds it)."""
    while not condition():
        await asyncio.sleep(0.01)


def fast_retries(config: ClientConfig) -> ModelClient:
    return ModelClient(dataclasses.replace(config, backoff_base_s=0.001, backoff_max_s=0.002))


def service_for(project: Path, environ: dict[str, str], **options: Any) -> AgentService:
    return AgentService(
        AgentOptions(workdir=project, environ=environ, **options), client_factory=fast_retries
    )


def env_of(server: ModelServer) -> dict[str, str]:
    return {"WAVE_BASE_URL": server.base_url, "WAVE_API_KEY": "k", "WAVE_MODEL": "test-model"}


@pytest.mark.req("CV3")
async def test_cv3_esc_mid_reply_keeps_the_partial_reply_then_the_note_then_the_prompt(
    make_service, model_server: ModelServer
) -> None:
    held = threading.Event()
    model_server.enqueue(text("one two three four", hold=held, hold_at=3), text("fresh"))
    service: AgentService = make_service()
    seen = events_of(service)
    turn = asyncio.create_task(service.run_turn("talk"))
    await until(lambda: len([e for e in seen if isinstance(e, ev.TextDelta)]) == 2)
    service.abort()
    assert (await turn).status == "aborted"
    held.set()
    assert (await service.run_turn("next")).text == "fresh"
    assert sent(model_server) == [
        {"role": "user", "content": "talk"},
        {"role": "assistant", "content": "one two "},
        {"role": "user", "content": parts(NOTE, "next")},
    ]
    lines = [json.loads(line) for line in service.transcript.path.read_text().splitlines()]
    assert [(m["role"], m["content"]) for m in lines] == [
        ("user", "talk"),
        ("assistant", "one two "),
        ("user", NOTE),
        ("user", "next"),
        ("assistant", "fresh"),
    ]
    finished = [e.message.content for e in seen if isinstance(e, ev.AssistantFinished)]
    assert finished[0] == "one two "  # the chat's block is finished with what streamed


@pytest.mark.req("CV3")
async def test_cv3_abandoned_prompts_are_never_sent_again_inside_the_next_one(
    make_service, model_server: ModelServer
) -> None:
    """The seen case: two prompts interrupted before any reply, then a third."""
    held = threading.Event()
    model_server.enqueue(text("slow", hold=held), text("slow again", hold=held), text("three"))
    service: AgentService = make_service()
    for n, prompt in enumerate(("please answer SLOW", "again SLOW please"), 1):
        turn = asyncio.create_task(service.run_turn(prompt))
        await asyncio.to_thread(model_server.wait_for_requests, n)
        service.abort()
        assert (await turn).status == "aborted"
    held.set()
    assert (await service.run_turn("third message")).text == "three"
    assert sent(model_server) == [
        {"role": "user", "content": "please answer SLOW"},
        {"role": "user", "content": parts(NOTE, "again SLOW please")},
        {"role": "user", "content": parts(NOTE, "third message")},
    ]


@pytest.mark.req("CV4")
async def test_cv4_a_failed_prompt_is_taken_back_not_glued_to_the_next(
    model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(*[error(500)] * 4, text("answer to second"))
    service = service_for(project, env_of(model_server))
    seen = events_of(service)
    failed = await service.run_turn("first")
    assert failed.status == "error" and "HTTP 500 after 4 attempts" in (failed.error or "")
    assert [(e.text, e.error) for e in seen if isinstance(e, ev.PromptFailed)] == [
        ("first", failed.error)
    ]
    retries = [e.text for e in seen if isinstance(e, ev.Notice) and e.kind == "retry"]
    assert len(retries) == 3 and all(r.startswith("HTTP 500 — retrying in") for r in retries)
    assert (await service.run_turn("second")).text == "answer to second"
    await service.destroy()
    assert sent(model_server) == [{"role": "user", "content": "second"}]
    # The transcript keeps the prompt, marked failed; a resumed session never sends it again.
    raw = [json.loads(line) for line in service.transcript.path.read_text().splitlines()]
    assert raw[0]["content"] == "first" and raw[1]["meta"]["failedPrompt"] == [raw[0]["id"]]
    resumed = service_for(project, env_of(model_server), continue_last=True)
    resumed.start()
    assert [(m.role, m.content) for m in resumed.messages] == [
        ("user", "second"),
        ("assistant", "answer to second"),
    ]
    await resumed.destroy()


@pytest.mark.req("CV4")
async def test_cv4_a_failure_after_the_model_answered_keeps_the_prompt(
    model_server: ModelServer, project: Path
) -> None:
    """Tools ran for the prompt, then a request failed: the prompt was answered in part, it
    stays (with its tool round), no PromptFailed; the next prompt is its own message."""
    model_server.enqueue(tool_call("Glob", {"pattern": "*.none"}), *[error(500)] * 4, text("ok"))
    service = service_for(project, env_of(model_server))
    seen = events_of(service)
    assert (await service.run_turn("look around")).status == "error"
    assert not [e for e in seen if isinstance(e, ev.PromptFailed)]
    await service.run_turn("and now?")
    await service.destroy()
    roles = [(m["role"], m.get("content")) for m in sent(model_server)]
    assert roles[0] == ("user", "look around") and roles[-1] == ("user", "and now?")
    assert [r for r, _ in roles] == ["user", "assistant", "tool", "user"]


@pytest.mark.req("CV5")
async def test_cv5_the_prompt_after_an_interrupted_tool_is_its_own_user_message(
    make_service, model_server: ModelServer
) -> None:
    model_server.enqueue(tool_call("Bash", {"command": "sleep 30"}, id="call_sleep"), text("ok"))
    service: AgentService = make_service(permission_mode="bypassPermissions")
    seen = events_of(service)
    turn = asyncio.create_task(service.run_turn("sleep"))
    await until(lambda: any(isinstance(e, ev.ToolStarted) for e in seen))
    service.abort()
    assert (await turn).status == "aborted"
    await service.run_turn("delegate a write to a helper")
    messages = sent(model_server)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "user"]
    assert messages[2] == {
        "role": "tool",
        "tool_call_id": "call_sleep",
        "content": ABORTED_TOOL_RESULT,
    }
    assert messages[3] == {"role": "user", "content": parts(NOTE, "delegate a write to a helper")}


@pytest.mark.req("CV5")
async def test_cv5_a_strict_template_gets_an_assistant_bridge_learned_once(
    project: Path,
) -> None:
    """Mistral refuses `user` after `tool`: the client learns it from the refusal and bridges
    with a short assistant message, from then on, instead of folding the user's words."""
    with running(providers.mistral()) as em:
        em.script(call(Call("Bash", {"command": "sleep 30"}, id="call_s")), say("one"), say("two"))
        environ = em.env(WAVE_DISABLE_AUTO_MEMORY="1")
        service = service_for(project, environ, permission_mode="bypassPermissions")
        seen = events_of(service)
        turn = asyncio.create_task(service.run_turn("sleep"))
        await until(lambda: any(isinstance(e, ev.ToolStarted) for e in seen))
        service.abort()
        await turn
        assert (await service.run_turn("now this")).text == "one"
        assert (await service.run_turn("and that")).text == "two"
        await service.destroy()
    assert len(em.rejected) == 1  # learned once, then every request fits
    accepted = em.chats()[-2].messages[1:]
    assert [m["role"] for m in accepted] == ["user", "assistant", "tool", "assistant", "user"]
    assert accepted[2]["content"] == ABORTED_TOOL_RESULT
    assert accepted[3] == {"role": "assistant", "content": "(no reply)"}
    assert accepted[4] == {"role": "user", "content": parts(NOTE, "now this")}
    assert em.chats()[-1].messages[1:6] == accepted


async def test_the_per_turn_request_cap_ends_the_turn_and_says_so(
    make_service, model_server: ModelServer
) -> None:
    model_server.default_reply = tool_call("Glob", {"pattern": "*.none"})
    service: AgentService = make_service(max_rounds_per_turn=3)
    seen = events_of(service)
    result = await service.run_turn("loop forever")
    assert len(model_server.requests) == 3
    assert result.status == "completed" and result.stop == "max_rounds"
    limit = [e.text for e in seen if isinstance(e, ev.Notice) and e.kind == "limit"]
    assert limit == [result.error] and "after 3 model requests" in limit[0]


@pytest.mark.req("AC3")
async def test_ac3_a_429_retry_is_announced(make_service, model_server: ModelServer) -> None:
    model_server.enqueue(error(429, retry_after=0), text("after the wait"))
    service: AgentService = make_service()
    seen = events_of(service)
    assert (await service.run_turn("hi")).text == "after the wait"
    retries = [e.text for e in seen if isinstance(e, ev.Notice) and e.kind == "rate-limit"]
    assert retries == ["rate limited — retrying in 0s"]


@pytest.mark.req("PV11")
async def test_pv11_no_ollama_probe_for_an_endpoint_that_is_not_ollama(
    make_service, model_server: ModelServer
) -> None:
    service: AgentService = make_service()
    await service.run_turn("one")
    await service.run_turn("two")
    assert [h for h in model_server.hits if "/api/" in h[1]] == []
    assert [path for _, path in model_server.hits] == ["/v1/chat/completions"] * 2


@pytest.mark.req("PV11")
async def test_pv11_only_ollamas_port_is_taken_for_ollama_before_it_answers() -> None:
    """No request is made: the port alone decides, until a reply carries Ollama's stamp."""
    ollama, other, deepseek = clients = [
        ModelClient(ClientConfig(base_url=url))
        for url in (
            "http://127.0.0.1:11434/v1",
            "http://127.0.0.1:8080/v1",
            "https://api.deepseek.com/v1",
        )
    ]
    assert ollama.speaks_ollama and not other.speaks_ollama and not deepseek.speaks_ollama
    assert await deepseek.probe_context_limit("deepseek-chat") is None
    for client in clients:
        await client.aclose()
