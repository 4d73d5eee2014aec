"""The model client against the scripted server over real HTTP."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.model_server import ModelServer, error, text, tool_call, tool_calls
from wave_tui.llm.client import ClientConfig, ModelClient, StreamDelta, parse_usage
from wave_tui.llm.errors import ModelConnectionError, ModelHTTPError, StreamInterrupted

BODY = {"model": "test-model", "messages": [{"role": "user", "content": "hi"}]}


def make_client(server: ModelServer, **kw) -> ModelClient:
    cfg = ClientConfig(base_url=server.base_url, api_key="k", backoff_base_s=0.01, **kw)
    return ModelClient(cfg)


@pytest.mark.req("AC2")
async def test_streams_text_and_reasoning_and_reports_deltas(model_server: ModelServer) -> None:
    """AC2: streams text and reasoning and reports deltas."""
    model_server.enqueue(text("the secret is 42", reasoning="thinking hard"))
    client = make_client(model_server)
    deltas: list[StreamDelta] = []
    reply = await client.stream_chat(BODY, deltas.append)
    await client.aclose()
    assert reply.content == "the secret is 42"
    assert reply.reasoning == "thinking hard"
    assert "".join(d.text for d in deltas if d.kind == "text") == "the secret is 42"
    assert len([d for d in deltas if d.kind == "text"]) > 1  # really streamed
    sent = model_server.requests[0].body
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert model_server.requests[0].headers["authorization"] == "Bearer k"


async def test_assembles_several_tool_calls_from_fragments(model_server: ModelServer) -> None:
    model_server.enqueue(
        tool_calls(
            [tool_call("Read", {"file_path": "a.txt"}), tool_call("Grep", {"pattern": "x y z"})]
        )
    )
    client = make_client(model_server)
    reply = await client.stream_chat(BODY)
    await client.aclose()
    assert [c.name for c in reply.tool_calls] == ["Read", "Grep"]
    assert json.loads(reply.tool_calls[1].arguments) == {"pattern": "x y z"}
    assert reply.finish_reason == "tool_calls"


async def test_usage_with_openai_cached_tokens(model_server: ModelServer) -> None:
    client = make_client(model_server)
    await client.stream_chat(BODY)
    reply = await client.stream_chat(
        {**BODY, "messages": [*BODY["messages"], {"role": "user", "content": "more"}]}
    )
    await client.aclose()
    assert reply.usage is not None
    assert reply.usage.cache_read_tokens == model_server.requests[1].cached_tokens > 0
    assert reply.usage.prompt_tokens == model_server.requests[1].prompt_tokens


def test_usage_parsing_accepts_anthropic_style_fields() -> None:
    usage = parse_usage(
        {
            "prompt_tokens": 100,
            "completion_tokens": 5,
            "cache_read_input_tokens": 80,
            "cache_creation_input_tokens": 20,
        }
    )
    assert usage is not None
    assert (usage.cache_read_tokens, usage.cache_creation_tokens, usage.total_tokens) == (
        80,
        20,
        105,
    )


async def test_anthropic_usage_style_from_server(model_server: ModelServer) -> None:
    client = make_client(model_server)
    await client.stream_chat(BODY)
    model_server.enqueue(text("again", usage_style="anthropic"))
    reply = await client.stream_chat(BODY)
    await client.aclose()
    assert reply.usage is not None and reply.usage.cache_read_tokens > 0


async def test_custom_headers_are_sent(model_server: ModelServer) -> None:
    client = make_client(model_server, headers={"X-Team": "wave"})
    await client.stream_chat(BODY)
    await client.aclose()
    assert model_server.requests[0].headers["x-team"] == "wave"


@pytest.mark.req("AC3")
async def test_retries_5xx_then_succeeds(model_server: ModelServer) -> None:
    """AC3: retries 5xx then succeeds."""
    model_server.enqueue(error(500), error(503), text("finally"))
    client = make_client(model_server)
    reply = await client.stream_chat(BODY)
    await client.aclose()
    assert reply.content == "finally" and reply.attempts == 3


@pytest.mark.req("AC3")
async def test_honours_retry_after(model_server: ModelServer) -> None:
    """AC3: honours retry after."""
    model_server.enqueue(error(429, retry_after=1), text("ok"))
    client = make_client(model_server)
    loop = asyncio.get_running_loop()
    started = loop.time()
    reply = await client.stream_chat(BODY)
    await client.aclose()
    assert reply.content == "ok"
    assert loop.time() - started >= 0.9  # waited as told, not the 10 ms backoff


async def test_gives_up_after_bounded_retries_with_typed_error(model_server: ModelServer) -> None:
    model_server.enqueue(*[error(500, "boom")] * 10)
    client = make_client(model_server, max_retries=2)
    with pytest.raises(ModelHTTPError) as info:
        await client.stream_chat(BODY)
    await client.aclose()
    assert info.value.status == 500 and info.value.attempts == 3
    assert len(model_server.requests) == 3
    assert "boom" in str(info.value)


async def test_client_error_is_not_retried(model_server: ModelServer) -> None:
    model_server.enqueue(error(400, "bad request body"))
    client = make_client(model_server)
    with pytest.raises(ModelHTTPError):
        await client.stream_chat(BODY)
    await client.aclose()
    assert len(model_server.requests) == 1


@pytest.mark.req("AC4")
async def test_mid_stream_disconnect_is_a_clean_typed_error(model_server: ModelServer) -> None:
    """AC4: mid stream disconnect is a clean typed error."""
    model_server.enqueue(text("a long answer that will be cut off", disconnect_after=3))
    client = make_client(model_server)
    with pytest.raises(StreamInterrupted) as info:
        await client.stream_chat(BODY)
    await client.aclose()
    assert "broke off" in str(info.value)
    assert len(model_server.requests) == 1  # no blind retry once the stream started


async def test_connection_refused_is_retried_then_reported() -> None:
    client = ModelClient(
        ClientConfig(base_url="http://127.0.0.1:9/v1", max_retries=1, backoff_base_s=0.01)
    )
    with pytest.raises(ModelConnectionError) as info:
        await client.stream_chat(BODY)
    await client.aclose()
    assert info.value.attempts == 2


async def test_cancellation_stops_the_stream(model_server: ModelServer) -> None:
    model_server.enqueue(text("slow " * 50, delay=0.05))
    client = make_client(model_server)
    task = asyncio.create_task(client.stream_chat(BODY))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await client.aclose()


async def test_an_unparseable_retry_after_falls_back_to_backoff(model_server: ModelServer) -> None:
    """Review: `Retry-After: soon` must not escape as a ValueError."""
    model_server.enqueue(error(429, retry_after="soon"), text("ok"))  # type: ignore[arg-type]
    client = make_client(model_server)
    reply = await client.stream_chat(BODY)
    await client.aclose()
    assert reply.content == "ok"


async def test_a_server_closing_without_a_response_is_a_typed_error() -> None:
    """Review: RemoteProtocolError before the headers → retried, then ModelConnectionError."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]

    def serve() -> None:
        for _ in range(3):
            conn, _ = listener.accept()
            conn.recv(65536)
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    client = ModelClient(
        ClientConfig(base_url=f"http://127.0.0.1:{port}/v1", max_retries=2, backoff_base_s=0.01)
    )
    with pytest.raises(ModelConnectionError) as info:
        await client.stream_chat(BODY)
    await client.aclose()
    listener.close()
    assert info.value.attempts == 3


async def test_a_loopback_endpoint_ignores_proxy_settings(
    model_server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The local model server on 127.0.0.1 must not be routed through HTTP_PROXY."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "")
    client = make_client(model_server)
    reply = await client.stream_chat(BODY)
    await client.aclose()
    assert reply.content == "OK"
