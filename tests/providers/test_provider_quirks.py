"""Each provider quirk against its emulator: real HTTP, the provider's real error body when the
client gets it wrong. `emulator.rejected` lists every refusal the client provoked."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.providers import providers
from tests.providers.emulator import Call, Emulator, Style, call, running, say
from wave_tui.agent.request import SystemPrompt, build_body
from wave_tui.llm.client import ClientConfig, ModelClient
from wave_tui.llm.errors import ContextLengthExceeded, ServerMisconfigured
from wave_tui.llm.types import Message, ToolCall, ToolSpec

READ = ToolSpec(
    name="Read",
    description="Read a file",
    parameters={"type": "object", "properties": {"file_path": {"type": "string"}}},
)
SYSTEM = SystemPrompt("You are wave.", "Project: demo.")


def client_for(em: Emulator, **kw: object) -> ModelClient:
    config = ClientConfig(base_url=em.base_url, api_key="k", backoff_base_s=0.01, **kw)  # type: ignore[arg-type]
    return ModelClient(config)


def body(messages: list[Message], *, model: str = "m", caching: bool = False, **kw: object):
    return build_body(
        model=model,
        system=SYSTEM,
        reminder="<system-reminder>memory index</system-reminder>",
        messages=messages,
        tools=[READ],
        caching=caching,
        **kw,  # type: ignore[arg-type]
    )


def tool_turn(reasoning: str | None) -> list[Message]:
    """A user turn whose first reply called Read, the result, and a rule attached after it."""
    return [
        Message.user("what is in a.txt?"),
        Message(
            role="assistant",
            reasoning=reasoning,
            tool_calls=[ToolCall(id="call_1", name="Read", arguments='{"file_path": "a.txt"}')],
        ),
        Message(role="tool", content="alpha", tool_call_id="call_1", tool_name="Read"),
        Message.user("<system-reminder>rule: be brief</system-reminder>", is_meta=True),
    ]


@pytest.fixture
def emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    with running(request.param()) as em:
        yield em


@pytest.mark.req("PV2", "PV8")
@pytest.mark.parametrize("emulator", [providers.deepseek], indirect=True)
async def test_pv2_reasoning_goes_back_on_the_tool_call_turn(emulator: Emulator) -> None:
    emulator.script(call(Call("Read", {"file_path": "a.txt"}), reasoning="I should read it"))
    client = client_for(emulator)
    first = await client.stream_chat(body([Message.user("what is in a.txt?")]))
    assert first.reasoning == "I should read it"
    history = tool_turn(first.reasoning)
    history[1].tool_calls = first.tool_calls
    second = await client.stream_chat(body(history))
    await client.aclose()
    assert emulator.rejected == [] and second.content == "OK"
    sent = [m for m in emulator.chats()[1].messages if m["role"] == "assistant"]
    assert sent[0]["reasoning_content"] == "I should read it"
    # req: PV8 — DeepSeek reports cache hits as prompt_cache_hit_tokens
    assert second.usage is not None and second.usage.cache_read_tokens > 0


@pytest.mark.req("PV2")
@pytest.mark.parametrize("emulator", [providers.deepseek], indirect=True)
async def test_pv2_an_assistant_turn_without_reasoning_is_filled_once_then_remembered(
    emulator: Emulator,
) -> None:
    """A tool-call turn from another model (or the fork) has no reasoning: one 400, retried."""
    client = client_for(emulator)
    await client.stream_chat(body(tool_turn(None)))
    await client.stream_chat(body(tool_turn(None)))
    await client.aclose()
    assert len(emulator.rejected) == 1
    assert "Missing `reasoning_content`" in emulator.rejected[0][1]["error"]["message"]
    assert len(emulator.chats()) == 3


@pytest.mark.req("F1", "F3", "PV6")
@pytest.mark.parametrize("emulator", [providers.mistral], indirect=True)
async def test_pv6_no_user_after_user_or_tool_on_the_wire(emulator: Emulator) -> None:
    client = client_for(emulator)
    history = tool_turn(None)
    reply = await client.stream_chat(body(history[:1]))
    reply2 = await client.stream_chat(body(history))
    await client.aclose()
    assert emulator.rejected == [] and reply.content == reply2.content == "OK"
    first, second = (r.messages for r in emulator.chats())
    assert [m["role"] for m in first] == ["system", "user"]
    texts = [p["text"] for p in first[1]["content"]]
    assert texts == ["<system-reminder>memory index</system-reminder>", "what is in a.txt?"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool"]
    assert second[-1]["content"] == "alpha\n\n<system-reminder>rule: be brief</system-reminder>"
    assert second[:2] == first  # the prefix is byte-stable across requests (F1-F3)


@pytest.mark.req("PV6")
@pytest.mark.parametrize("emulator", [providers.groq], indirect=True)
async def test_pv6_system_is_a_plain_string_unless_caching(emulator: Emulator) -> None:
    client = client_for(emulator)
    await client.stream_chat(body([Message.user("hi")]))
    assert emulator.rejected == []
    assert emulator.chats()[0].messages[0]["content"] == "You are wave.\n\nProject: demo."
    wire = client.adapter.prepare(body([Message.user("hi")], caching=True))
    await client.aclose()
    assert wire["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}


@pytest.mark.req("PV1", "PV4", "PV11")
@pytest.mark.parametrize("emulator", [providers.ollama], indirect=True)
async def test_pv4_index_zero_calls_with_distinct_ids_are_separate(emulator: Emulator) -> None:
    emulator.script(
        call(
            Call("Read", {"file_path": "a.txt"}, id="call_a"),
            Call("Read", {"file_path": "b.txt"}, id="call_b"),
            reasoning="two files",
        )
    )
    client = client_for(emulator)
    reply = await client.stream_chat(body([Message.user("read both")]))
    assert [(c.id, c.name) for c in reply.tool_calls] == [("call_a", "Read"), ("call_b", "Read")]
    assert [json.loads(c.arguments)["file_path"] for c in reply.tool_calls] == ["a.txt", "b.txt"]
    # req: PV1 — Ollama streams `reasoning`; it goes back under the same name
    assert reply.reasoning == "two files"
    history = [
        Message.user("read both"),
        Message(role="assistant", reasoning=reply.reasoning, tool_calls=reply.tool_calls),
    ]
    wire = client.adapter.prepare(body(history))
    assert wire["messages"][-1]["reasoning"] == "two files"
    assert "reasoning_content" not in wire["messages"][-1]
    # req: PV11 — the input window is Ollama's num_ctx, read from /api/show
    assert await client.probe_context_limit("gemma3") == 8192
    await client.aclose()
    assert emulator.requests[-1].path == "/api/show"
    assert emulator.requests[-1].body == {"model": "gemma3"}


@pytest.mark.req("PV11")
async def test_pv11_a_server_that_is_not_ollama_has_no_probed_limit() -> None:
    with running(providers.mistral()) as em:
        client = client_for(em)
        assert await client.probe_context_limit("m") is None
        await client.aclose()


@pytest.mark.req("PV12")
async def test_pv12_ollama_model_without_tools_names_the_fix() -> None:
    with running(Emulator(rules=[providers.no_tools_model])) as em:
        client = client_for(em)
        with pytest.raises(ServerMisconfigured) as info:
            await client.stream_chat(body([Message.user("hi")], model="gemma:2b"))
        await client.aclose()
    assert "tool-capable model" in str(info.value) and len(em.chats()) == 1
    assert "\n" not in str(info.value)


@pytest.mark.req("PV7")
async def test_pv7_azure_deployment_url_and_api_key_header() -> None:
    with running(providers.azure()) as em:
        base = em.origin + "/openai/deployments/gpt4o?api-version=2024-10-21"
        client = ModelClient(ClientConfig(base_url=base, headers={"api-key": "azure-secret"}))
        reply = await client.stream_chat(body([Message.user("hi")]))
        await client.aclose()
    assert em.rejected == [] and reply.content == "OK"
    assert em.chats()[0].query == {"api-version": ["2024-10-21"]}


@pytest.mark.req("PV9")
async def test_pv9_no_usage_in_the_stream_is_estimated() -> None:
    with running(providers.lm_studio()) as em:
        client = client_for(em)
        reply = await client.stream_chat(body([Message.user("hi " * 400)]))
        await client.aclose()
    assert reply.content == "OK" and reply.usage is not None
    assert reply.usage.estimated is True
    assert reply.usage.prompt_tokens >= 300  # 1,200 characters of user text alone


@pytest.mark.req("X13")
async def test_x13_malformed_usage_keeps_the_answer() -> None:
    with running(Emulator(style=Style(usage="malformed"))) as em:
        em.script(say("the full answer"))
        client = client_for(em)
        reply = await client.stream_chat(body([Message.user("hi")]))
        await client.aclose()
    assert reply.content == "the full answer"
    assert reply.usage is not None and reply.usage.estimated


@pytest.mark.req("PV10")
@pytest.mark.parametrize("emulator", [providers.openai_reasoning], indirect=True)
async def test_pv10_o_series_gets_max_completion_tokens_without_a_round_trip(
    emulator: Emulator,
) -> None:
    client = client_for(emulator)
    await client.stream_chat(body([Message.user("hi")], model="o3-mini", max_tokens=500))
    await client.aclose()
    assert emulator.rejected == []
    assert emulator.chats()[0].body["max_completion_tokens"] == 500


@pytest.mark.req("PV10")
@pytest.mark.parametrize("emulator", [providers.openai_reasoning], indirect=True)
async def test_pv10_rejected_parameters_are_retried_once_and_remembered(
    emulator: Emulator,
) -> None:
    """An Azure deployment name hides the model: learn from the two real 400 bodies."""
    client = client_for(emulator)
    request = body([Message.user("hi")], model="prod-deploy", max_tokens=500)
    request["temperature"] = 0.2
    for _ in range(3):
        assert (await client.stream_chat(request)).content == "OK"
    await client.aclose()
    assert [r[1]["error"]["code"] for r in emulator.rejected] == [
        "unsupported_parameter",
        "unsupported_value",
    ]
    last = emulator.chats()[-1].body
    assert last["max_completion_tokens"] == 500 and "temperature" not in last
    assert "max_tokens" not in last


@pytest.mark.req("PV3")
@pytest.mark.parametrize("emulator", [providers.vllm], indirect=True)
async def test_pv3_inline_think_is_reasoning_not_answer(emulator: Emulator) -> None:
    emulator.script(say("The answer is 4.", reasoning="2+2 is 4"))
    client = client_for(emulator)
    kinds: list[tuple[str, str]] = []
    reply = await client.stream_chat(
        body([Message.user("2+2?")]), lambda d: kinds.append((d.kind, d.text))
    )
    await client.aclose()
    assert reply.content == "The answer is 4."
    assert reply.reasoning == "2+2 is 4"
    assert "think>" not in "".join(t for k, t in kinds if k == "text")


@pytest.mark.req("PV10")
@pytest.mark.parametrize("emulator", [providers.vllm], indirect=True)
async def test_pv10_max_tokens_beyond_the_window_is_lowered_to_what_is_left(
    emulator: Emulator,
) -> None:
    client = client_for(emulator)
    reply = await client.stream_chat(body([Message.user("hi")], max_tokens=8190))
    await client.aclose()
    assert reply.content == "OK" and len(emulator.rejected) == 1
    sent = emulator.chats()[-1]
    room = providers.VLLM_WINDOW - providers.vllm_prompt_tokens(sent)
    assert 0.85 * room <= sent.body["max_tokens"] <= room  # the window less a safety margin


@pytest.mark.req("PV11")
@pytest.mark.parametrize("emulator", [providers.vllm], indirect=True)
async def test_pv11_vllm_prompt_over_the_window_is_context_length_exceeded(
    emulator: Emulator,
) -> None:
    client = client_for(emulator)
    with pytest.raises(ContextLengthExceeded) as info:
        await client.stream_chat(body([Message.user("word " * 40000)]))
    await client.aclose()
    assert "maximum context length is 8192" in str(info.value)
    assert len(emulator.chats()) == 1


@pytest.mark.req("PV11")
async def test_pv11_llamacpp_context_size_is_context_length_exceeded() -> None:
    with running(Emulator(rules=[providers.llamacpp_context])) as em:
        client = client_for(em)
        with pytest.raises(ContextLengthExceeded):
            await client.stream_chat(body([Message.user("word " * 4000)]))
        await client.aclose()
    assert len(em.chats()) == 1


@pytest.mark.req("PV12")
@pytest.mark.parametrize(
    ("rule", "fix"),
    [
        (providers.vllm_no_auto_tools, "--enable-auto-tool-choice"),
        (providers.llamacpp_no_jinja, "--jinja"),
    ],
)
async def test_pv12_misconfigured_server_is_one_line_naming_the_fix_not_retried(
    rule: providers.Rule, fix: str
) -> None:
    with running(Emulator(rules=[rule])) as em:
        client = client_for(em)
        with pytest.raises(ServerMisconfigured) as info:
            await client.stream_chat(body([Message.user("hi")]))
        await client.aclose()
    assert fix in info.value.fix and "\n" not in str(info.value)
    assert len(em.chats()) == 1  # a 500 that will never succeed is not retried


@pytest.mark.req("PV12")
async def test_pv12_finish_reason_length_marks_the_reply_cut() -> None:
    with running(Emulator()) as em:
        em.script(say("half an ans", finish_reason="length"))
        client = client_for(em)
        reply = await client.stream_chat(body([Message.user("hi")]))
        await client.aclose()
    assert reply.cut and reply.content == "half an ans"
