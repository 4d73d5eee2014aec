"""Streaming client for OpenAI-compatible `/chat/completions` endpoints (async httpx + SSE)."""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any, Literal

import httpx
from httpx_sse import EventSource

from wave_tui.llm.errors import (
    ModelConnectionError,
    ModelHTTPError,
    ModelProtocolError,
    StreamInterrupted,
)
from wave_tui.llm.types import ToolCall, Usage

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
MAX_RETRY_AFTER_S = 60.0


@dataclass(frozen=True)
class ClientConfig:
    base_url: str
    api_key: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    max_retries: int = 3
    backoff_base_s: float = 0.5
    backoff_max_s: float = 8.0
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 300.0


@dataclass(frozen=True)
class StreamDelta:
    kind: Literal["text", "reasoning", "tool_call"]
    text: str
    tool_index: int | None = None
    tool_name: str | None = None


@dataclass
class AssistantReply:
    content: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    finish_reason: str | None = None
    model: str | None = None
    attempts: int = 1
    elapsed_s: float = 0.0


DeltaHandler = Callable[[StreamDelta], Awaitable[None] | None]


def parse_usage(raw: dict[str, Any] | None) -> Usage | None:
    """Usage in any of the shapes providers send (OpenAI, Anthropic-compatible, llama.cpp)."""
    if not isinstance(raw, dict):
        return None
    details = raw.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    cache_read = raw.get("cache_read_input_tokens")
    cache_write = raw.get("cache_creation_input_tokens")
    prompt = int(raw.get("prompt_tokens") or raw.get("input_tokens") or 0)
    completion = int(raw.get("completion_tokens") or raw.get("output_tokens") or 0)
    total = int(raw.get("total_tokens") or prompt + completion)
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        cache_read_tokens=int(cache_read or cached or 0),
        cache_creation_tokens=int(cache_write or 0),
    )


def _retry_after_seconds(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None  # neither seconds nor an HTTP date: fall back to our own backoff
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return max(0.0, parsed.timestamp() - time.time())


def _error_message(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:300] or "(empty body)"
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:300]
        if isinstance(err, str):
            return err[:300]
    return text[:300]


class _ToolCallAssembler:
    def __init__(self) -> None:
        self._calls: dict[int, dict[str, str]] = {}

    def add(self, delta: dict[str, Any]) -> tuple[int, str | None, str]:
        raw_index = delta.get("index")
        index = int(raw_index) if raw_index is not None else len(self._calls)
        call = self._calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
        if delta.get("id"):
            call["id"] = delta["id"]
        function = delta.get("function") or {}
        if function.get("name"):
            call["name"] += function["name"]
        fragment = function.get("arguments") or ""
        call["arguments"] += fragment
        return index, call["name"] or None, fragment

    def calls(self) -> list[ToolCall]:
        out = []
        for index in sorted(self._calls):
            call = self._calls[index]
            call_id = call["id"] or f"call_{index}_{random.randrange(1 << 30):x}"
            out.append(ToolCall(id=call_id, name=call["name"], arguments=call["arguments"] or "{}"))
        return out


class ModelClient:
    def __init__(self, config: ClientConfig, *, transport: httpx.AsyncBaseTransport | None = None):
        self.config = config
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        headers.update(config.headers)
        timeout = httpx.Timeout(config.read_timeout_s, connect=config.connect_timeout_s)
        # Loading the CA bundle costs ~0.1 s at start-up; a plain-HTTP endpoint (a local
        # server) never uses it. HTTPS endpoints are verified as usual.
        verify = not config.base_url.lower().startswith("http://")
        # A loopback endpoint (the local model) must never be sent through HTTP(S)_PROXY.
        host = (httpx.URL(config.base_url).host or "").lower()
        loopback = host in ("localhost", "::1") or host.startswith("127.")
        self._http = httpx.AsyncClient(
            headers=headers,
            timeout=timeout,
            transport=transport,
            verify=verify,
            trust_env=not loopback,
        )
        self._url = config.base_url.rstrip("/") + "/chat/completions"

    async def aclose(self) -> None:
        await self._http.aclose()

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, MAX_RETRY_AFTER_S)
        base = min(self.config.backoff_max_s, self.config.backoff_base_s * (2 ** (attempt - 1)))
        return base * (0.5 + random.random() / 2)  # jitter: 50-100 % of the step

    async def stream_chat(
        self, body: dict[str, Any], on_delta: DeltaHandler | None = None
    ) -> AssistantReply:
        """POST one streaming request and assemble the reply.

        Retries (bounded, with backoff and jitter, honouring Retry-After) happen only before the
        stream has started; once it has, a break raises StreamInterrupted.
        """
        body = {**body, "stream": True, "stream_options": {"include_usage": True}}
        started = time.monotonic()
        attempts = 0
        while True:
            attempts += 1
            try:
                async with self._http.stream("POST", self._url, json=body) as response:
                    if response.status_code >= 400:
                        raw = await response.aread()
                        message = _error_message(raw)
                        retryable = response.status_code in RETRY_STATUSES
                        if retryable and attempts <= self.config.max_retries:
                            await asyncio.sleep(
                                self._backoff(attempts, _retry_after_seconds(response))
                            )
                            continue
                        raise ModelHTTPError(response.status_code, message, attempts=attempts)
                    reply = await self._consume(response, on_delta)
                    reply.attempts = attempts
                    reply.elapsed_s = time.monotonic() - started
                    return reply
            except httpx.TransportError as exc:
                # Before the stream started (refused, reset, timed out, closed without a
                # response): retried like a 5xx, then one clear error. Mid-stream breaks are
                # turned into StreamInterrupted inside _consume and never reach here.
                if attempts <= self.config.max_retries:
                    await asyncio.sleep(self._backoff(attempts, None))
                    continue
                raise ModelConnectionError(
                    str(exc) or type(exc).__name__, attempts=attempts
                ) from exc

    async def _consume(
        self, response: httpx.Response, on_delta: DeltaHandler | None
    ) -> AssistantReply:
        reply = AssistantReply()
        tools = _ToolCallAssembler()
        content: list[str] = []
        reasoning: list[str] = []
        done = False

        async def emit(delta: StreamDelta) -> None:
            if on_delta is not None:
                result = on_delta(delta)
                if asyncio.iscoroutine(result):
                    await result

        content_type = response.headers.get("content-type", "")
        if "text/event-stream" not in content_type:
            raw = await response.aread()
            return self._from_json(raw)
        try:
            async for sse in EventSource(response).aiter_sse():
                data = sse.data.strip()
                if not data:
                    continue
                if data == "[DONE]":
                    done = True
                    break
                try:
                    chunk = json.loads(data)
                except ValueError as exc:
                    raise ModelProtocolError(f"invalid JSON in stream: {data[:120]}") from exc
                if chunk.get("error"):
                    raise StreamInterrupted(_error_message(data.encode()), "".join(content))
                reply.model = chunk.get("model") or reply.model
                usage = parse_usage(chunk.get("usage"))
                if usage is not None:
                    reply.usage = usage
                for choice in chunk.get("choices") or []:
                    delta = choice.get("delta") or {}
                    text = delta.get("content")
                    if text:
                        content.append(text)
                        await emit(StreamDelta("text", text))
                    thought = delta.get("reasoning_content") or delta.get("reasoning")
                    if thought:
                        reasoning.append(thought)
                        await emit(StreamDelta("reasoning", thought))
                    for call_delta in delta.get("tool_calls") or []:
                        index, name, fragment = tools.add(call_delta)
                        await emit(StreamDelta("tool_call", fragment, index, name))
                    if choice.get("finish_reason"):
                        reply.finish_reason = choice["finish_reason"]
        except httpx.TransportError as exc:  # once streaming, never retried blindly
            raise StreamInterrupted(str(exc) or type(exc).__name__, "".join(content)) from exc
        if not done and reply.finish_reason is None:
            raise StreamInterrupted("connection closed before the reply finished", "".join(content))
        reply.content = "".join(content)
        reply.reasoning = "".join(reasoning)
        reply.tool_calls = tools.calls()
        return reply

    @staticmethod
    def _from_json(raw: bytes) -> AssistantReply:
        try:
            data = json.loads(raw)
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ModelProtocolError(f"unexpected response: {raw[:200]!r}") from exc
        calls = [
            ToolCall(
                id=c.get("id") or f"call_{i}",
                name=(c.get("function") or {}).get("name", ""),
                arguments=(c.get("function") or {}).get("arguments") or "{}",
            )
            for i, c in enumerate(message.get("tool_calls") or [])
        ]
        return AssistantReply(
            content=message.get("content") or "",
            reasoning=message.get("reasoning_content") or "",
            tool_calls=calls,
            usage=parse_usage(data.get("usage")),
            finish_reason=choice.get("finish_reason"),
            model=data.get("model"),
        )
