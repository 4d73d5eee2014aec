"""Streaming client for OpenAI-compatible `/chat/completions` endpoints (async httpx + SSE)."""

from __future__ import annotations

import asyncio
import copy
import email.utils
import json
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC
from typing import Any

from wave_tui.llm.adapt import WireAdapter
from wave_tui.llm.assembly import ThinkSplitter, ToolCallAssembler, repair_arguments, split_think
from wave_tui.llm.body_json import BodyEncoder
from wave_tui.llm.errors import (
    ContextLengthExceeded,
    ModelConfigError,
    ModelConnectionError,
    ModelHTTPError,
    ModelProtocolError,
    RetryCause,
    RetryScheduled,
    ServerMisconfigured,
    StreamInterrupted,
)
from wave_tui.llm.local_demo import demo_request, is_demo_engine
from wave_tui.llm.local_server import is_local_engine
from wave_tui.llm.local_template import TemplateTokenFilter, strip_template_tokens
from wave_tui.llm.model_list import ModelListUnavailable, fetch_model_ids
from wave_tui.llm.ollama import OLLAMA_PORT, probe_ollama_context, says_ollama
from wave_tui.llm.quirks import (
    ErrorInfo,
    is_context_length,
    is_role_order,
    misconfiguration_fix,
    parse_error,
    stated_prompt_tokens,
    stated_window,
)
from wave_tui.llm.replies import FIRST_BYTE_TIMEOUT_ENV, AssistantReply, ClientConfig, StreamDelta
from wave_tui.llm.types import ToolCall
from wave_tui.llm.usage import estimated_usage, parse_usage
from wave_tui.llm.wire import unstreamed
from wave_tui.net.http import EventSource, httpx

__all__ = ["AssistantReply", "ClientConfig", "ModelClient", "StreamDelta", "parse_usage"]

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
MAX_RETRY_AFTER_S = 60.0
DeltaHandler = Callable[[StreamDelta], Awaitable[None] | None]
RetryHandler = Callable[[RetryScheduled], None]


# req: AC3
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


# req: PV7
def chat_url(base_url: str) -> httpx.URL:
    """`/chat/completions` joined to the base URL's path, its query kept (req: PV7, Azure)."""
    url = httpx.URL(base_url)
    path = url.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return url.copy_with(path=path)


# req: X14
def config_problem(config: ClientConfig) -> str | None:
    """Why this configuration can never work, or None (req: X14: said at once, not retried)."""
    try:
        url = httpx.URL(config.base_url)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        return f"base URL {config.base_url!r} is not a URL ({exc})"
    if url.scheme not in ("http", "https") or not url.host:
        return f"base URL {config.base_url!r} must start with http:// or https:// and name a host"
    if any(c.isspace() for c in config.base_url):
        return f"base URL {config.base_url!r} contains whitespace"
    if url.port is not None and not 0 < url.port < 65536:  # httpx accepts any number
        return f"base URL {config.base_url!r} names port {url.port}, outside 1-65535"
    if config.api_key and any(c in config.api_key for c in "\r\n\0"):
        return "the API key contains a line break"
    for name, value in config.headers.items():
        if not name or any(c in name for c in "\r\n\0: ") or any(c in value for c in "\r\n\0"):
            return f"custom header {name!r} has a line break or an invalid character"
    return None


class ModelClient:
    # req: PV7
    def __init__(self, config: ClientConfig, *, transport: httpx.AsyncBaseTransport | None = None):
        self.config = config
        self._problem = config_problem(config)
        accept = "text/event-stream" if config.stream else "application/json"
        headers = {"Content-Type": "application/json", "Accept": accept}
        if self._problem is None:
            if config.api_key:
                headers["Authorization"] = f"Bearer {config.api_key}"
            headers.update(config.headers)
        timeout = httpx.Timeout(config.read_timeout_s, connect=config.connect_timeout_s)
        # Loading the CA bundle costs ~0.1 s at start-up; a plain-HTTP endpoint (a local
        # server) never uses it. HTTPS endpoints are verified as usual.
        verify = not config.base_url.lower().startswith("http://")
        loopback = False
        if self._problem is None:
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
        self._url = chat_url(config.base_url) if self._problem is None else None
        self._extra_headers: dict[str, str] = {}  # this view's own (`with_headers`)
        self.adapter = WireAdapter()
        self._encoder = BodyEncoder()
        # Only an endpoint known to be Ollama gets the /api/show probe (req: PV11): its port,
        # or a reply that says so. Azure, DeepSeek & co never see a request they did not ask for.
        # The `provider` setting says it outright when the address cannot (a proxy, a port
        # of the user's choosing); unsaid, Ollama's own port does.
        self.speaks_ollama = self._url is not None and (
            config.provider == "ollama"
            or (config.provider is None and self._url.port == OLLAMA_PORT)
        )

    @property
    def shown_url(self) -> str:
        """The chat URL without its query (which may carry a key): what errors name."""
        return str(self._url.copy_with(query=None)) if self._url is not None else ""

    # req: SX2
    def with_headers(self, extra: Mapping[str, str]) -> ModelClient:
        """This client sending `extra` headers too (a subagent's `subagent_headers`): the same
        connection pool and learned provider rules, so nothing is opened or closed for it."""
        view = copy.copy(self)
        view._extra_headers = {**self._extra_headers, **extra}
        for name, value in extra.items():
            if not name or any(c in name for c in "\r\n\0: ") or any(c in value for c in "\r\n\0"):
                view._problem = f"header {name!r} has a line break or an invalid character"
        return view

    async def aclose(self) -> None:
        await self._http.aclose()

    async def list_models(self) -> tuple[str, ...]:
        """The models the endpoint offers (`GET /models`, a bounded wait), with this client's
        key and headers. Raises ModelListUnavailable."""
        if self._problem is not None:
            raise ModelListUnavailable(self._problem)
        return await fetch_model_ids(self._http, self.config.base_url)

    async def probe_context_limit(self, model: str) -> int | None:
        """The model's input window when the endpoint is Ollama (`num_ctx`), else None."""
        if self._problem is not None or not self.speaks_ollama:
            return None
        return await probe_ollama_context(self._http, self.config.base_url, model)

    # req: AC3
    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, MAX_RETRY_AFTER_S)
        step = self.config.backoff_base_s * 2.0 ** (attempt - 1)
        base = min(self.config.backoff_max_s, step)
        return float(base) * (0.5 + random.random() / 2)  # jitter: 50-100 % of the step

    def _retry_wait(self, attempts: int, started: float, retry_after: float | None) -> float | str:
        """Seconds to wait before the next attempt, or why not to retry."""
        if attempts > self.config.max_retries:
            return ""
        cap = self.config.max_retry_time_s
        if retry_after is not None and retry_after > cap:
            return (
                f"the server asked to wait {retry_after:.0f} s; retrying is capped at {cap:.0f} s"
            )
        wait = self._backoff(attempts, retry_after)
        if time.monotonic() - started + wait > cap:
            return f"retrying is capped at {cap:.0f} s in total"
        return wait

    # req: AC8
    async def _open(self, body: dict[str, Any]) -> httpx.Response:
        assert self._url is not None
        # The bytes `json=body` would send, the big strings escaped once (llm/body_json.py).
        request = self._http.build_request(
            "POST",
            self._url,
            content=self._encoder.encode(body),
            headers=self._extra_headers or None,
        )
        limit = self.config.first_byte_timeout_s
        # Not `asyncio.wait_for`: on Python 3.11 it returns the result when the headers arrive
        # just as the turn is cancelled, and the abort (Esc) is lost — the reply then streams on.
        try:
            async with asyncio.timeout(limit):
                return await self._http.send(request, stream=True)
        except TimeoutError:
            raise httpx.ReadTimeout(
                f"no response within {limit:.0f} s (first-byte timeout, {FIRST_BYTE_TIMEOUT_ENV})",
                request=request,
            ) from None

    async def stream_chat(
        self,
        body: dict[str, Any],
        on_delta: DeltaHandler | None = None,
        on_retry: RetryHandler | None = None,
    ) -> AssistantReply:
        """POST one streaming request and assemble the reply.

        Retries (bounded in count and total time, with backoff and jitter, honouring
        Retry-After) happen only before the stream has started; once it has, a break raises
        StreamInterrupted. A rejected parameter is retried once the other way and remembered.
        `on_retry` hears of every wait before another attempt.
        """
        if self._problem is not None:
            raise ModelConfigError(self._problem)
        body = dict(body)
        started = time.monotonic()
        attempts = 0
        while True:
            attempts += 1
            wire = self.adapter.prepare(body)
            if not self.config.stream:
                wire = unstreamed(wire)
            if is_demo_engine(self.config.base_url):  # the bundled demo model: brief requests
                wire = demo_request(wire)
            try:
                response = await self._open(wire)
            except httpx.TransportError as exc:
                # Before the stream started (refused, reset, timed out, closed without a
                # response): retried like a 5xx, then one clear error. Mid-stream breaks are
                # turned into StreamInterrupted inside _consume and never reach here.
                wait = self._retry_wait(attempts, started, None)
                if isinstance(wait, float):
                    if on_retry is not None:
                        why = f"cannot reach {self.shown_url}"
                        on_retry(RetryScheduled("connection", why, wait, attempts))
                    await asyncio.sleep(wait)
                    continue
                reason = f" ({wait})" if wait else ""
                raise ModelConnectionError(
                    f"{exc or type(exc).__name__}{reason}", attempts=attempts, url=self.shown_url
                ) from exc
            try:
                if response.status_code >= 400:
                    raw = await response.aread()
                    info = parse_error(raw)
                    learnable = response.status_code < 500 or is_role_order(info)
                    if learnable and self.adapter.learn(info, body):
                        for lesson in self.adapter.lessons:
                            if on_retry is not None:
                                on_retry(RetryScheduled("learned", lesson, 0.0, attempts))
                        self.adapter.lessons.clear()
                        continue
                    retry_after = _retry_after_seconds(response)
                    self._raise_final(response.status_code, info, attempts)
                    wait = self._retry_wait(attempts, started, retry_after)
                    if isinstance(wait, float):
                        if on_retry is not None:
                            status = response.status_code
                            limited = status == 429
                            why = "rate limited" if limited else f"HTTP {status}"
                            cause: RetryCause = "rate_limit" if limited else "server"
                            on_retry(RetryScheduled(cause, why, wait, attempts))
                        await asyncio.sleep(wait)
                        continue
                    reason = f" (gave up: {wait})" if wait else ""
                    raise ModelHTTPError(
                        response.status_code, info.message + reason, attempts=attempts
                    )
                reply = await self._consume(response, wire, on_delta)
            finally:
                await response.aclose()
            reply.attempts = attempts
            reply.elapsed_s = time.monotonic() - started
            return reply

    @staticmethod
    def _raise_final(status: int, info: ErrorInfo, attempts: int) -> None:
        """Raise for answers that no retry can change (misconfiguration, context, 4xx)."""
        fix = misconfiguration_fix(info)
        if fix is not None:
            raise ServerMisconfigured(status, info.message, fix, attempts=attempts)
        if is_context_length(info):
            raise ContextLengthExceeded(
                status,
                info.message,
                attempts=attempts,
                window=stated_window(info),
                prompt_tokens=stated_prompt_tokens(info),
            )
        if status not in RETRY_STATUSES:
            raise ModelHTTPError(status, info.message, attempts=attempts)

    # req: PV1
    # req: PV3
    async def _consume(
        self, response: httpx.Response, wire: dict[str, Any], on_delta: DeltaHandler | None
    ) -> AssistantReply:
        reply = AssistantReply()
        tools = ToolCallAssembler()
        think = ThinkSplitter()
        # A local engine's reply loses the chat-template tokens it leaks as text.
        template = TemplateTokenFilter() if is_local_engine(self.config.base_url) else None
        content: list[str] = []
        reasoning: list[str] = []
        arg_chars = 0
        done = False
        choices_seen = False

        async def emit(delta: StreamDelta) -> None:
            if on_delta is not None:
                result = on_delta(delta)
                if asyncio.iscoroutine(result):
                    await result

        async def emit_text(pieces: list[tuple[str, str]]) -> None:
            for kind, piece in pieces:
                (reasoning if kind == "reasoning" else content).append(piece)
                await emit(StreamDelta("reasoning" if kind == "reasoning" else "text", piece))

        content_type = response.headers.get("content-type", "")
        if "text/event-stream" not in content_type:
            return self._from_json(await response.aread(), wire)
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
                if not isinstance(chunk, dict):
                    continue
                if chunk.get("error"):
                    message = parse_error(data.encode()).message
                    raise StreamInterrupted(message, "".join(content))
                self.speaks_ollama = self.speaks_ollama or (
                    self.config.provider is None and says_ollama(chunk)
                )
                reply.model = chunk.get("model") or reply.model
                usage = parse_usage(chunk.get("usage"))
                if usage is not None:
                    reply.usage = usage
                for choice in chunk.get("choices") or []:
                    if not isinstance(choice, dict):
                        continue
                    choices_seen = True
                    delta = choice.get("delta") or {}
                    thought = self.adapter.read_reasoning(delta)
                    if thought:
                        reasoning.append(thought)
                        await emit(StreamDelta("reasoning", thought))
                    text = delta.get("content")
                    if isinstance(text, str) and template is not None:
                        text = template.feed(text)
                    if isinstance(text, str) and text:
                        await emit_text(think.feed(text))
                    for call_delta in delta.get("tool_calls") or []:
                        if not isinstance(call_delta, dict):
                            continue
                        index, name, fragment = tools.add(call_delta)
                        arg_chars += len(fragment)
                        await emit(StreamDelta("tool_call", fragment, index, name))
                    if choice.get("finish_reason"):
                        reply.finish_reason = choice["finish_reason"]
                if template is not None and template.ended:
                    # The model went on to play the next turns: the reply is complete, and
                    # closing the stream stops the engine spending CPU on the rest.
                    reply.finish_reason = reply.finish_reason or "stop"
                    done = True
                    break
        except httpx.TransportError as exc:  # once streaming, never retried blindly
            raise StreamInterrupted(str(exc) or type(exc).__name__, "".join(content)) from exc
        if not done and reply.finish_reason is None:
            raise StreamInterrupted("connection closed before the reply finished", "".join(content))
        if not choices_seen:  # a stream of no choices is no reply, not an empty answer
            raise ModelProtocolError("the stream ended without a reply (no choices in it)")
        if template is not None:
            await emit_text(think.feed(template.flush()))
        await emit_text(think.flush())
        reply.content = "".join(content)
        reply.reasoning = "".join(reasoning)
        reply.tool_calls = tools.calls()
        if reply.usage is None or not reply.usage.prompt_tokens:
            chars = len(reply.content) + len(reply.reasoning) + arg_chars
            reply.usage = estimated_usage(wire, chars)
        return reply

    def _from_json(self, raw: bytes, wire: dict[str, Any]) -> AssistantReply:
        try:
            data = json.loads(raw)
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise ModelProtocolError(f"unexpected response: {raw[:200]!r}") from exc
        self.speaks_ollama = self.speaks_ollama or (
            self.config.provider is None and says_ollama(data)
        )
        calls = [
            ToolCall(
                id=c.get("id") or f"call_{i}",
                name=(c.get("function") or {}).get("name", ""),
                arguments=repair_arguments((c.get("function") or {}).get("arguments") or "{}"),
            )
            for i, c in enumerate(message.get("tool_calls") or [])
        ]
        text = message.get("content") or ""
        if isinstance(text, str) and is_local_engine(self.config.base_url):
            text = strip_template_tokens(text)
        thought, answer = split_think(text)
        reasoning = self.adapter.read_reasoning(message) or thought
        usage = parse_usage(data.get("usage"))
        if usage is None or not usage.prompt_tokens:
            usage = estimated_usage(wire, len(answer) + len(reasoning))
        return AssistantReply(
            content=answer,
            reasoning=reasoning,
            tool_calls=calls,
            usage=usage,
            finish_reason=choice.get("finish_reason"),
            model=data.get("model"),
        )
