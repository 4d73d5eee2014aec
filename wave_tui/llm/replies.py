"""What a model client is configured with and what it streams back: plain data, apart from the
client itself (`client.py`, which brings httpx), so that whatever only handles replies — the
agent loop, compaction, the app — can load without the HTTP stack."""

from __future__ import annotations

import os
from dataclasses import field
from typing import Literal

from wave_tui.config.records import record
from wave_tui.llm.types import ToolCall, Usage

# All waiting between attempts of one request, summed.
MAX_RETRY_TIME_S = 120.0  # req: X14
FIRST_BYTE_TIMEOUT_ENV = "WAVE_FIRST_BYTE_TIMEOUT"
DEFAULT_FIRST_BYTE_TIMEOUT_S = 120.0


def _first_byte_timeout_from_env() -> float:
    raw = os.environ.get(FIRST_BYTE_TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_FIRST_BYTE_TIMEOUT_S
    except ValueError:
        return DEFAULT_FIRST_BYTE_TIMEOUT_S
    return value if value > 0 else DEFAULT_FIRST_BYTE_TIMEOUT_S


@record
class ClientConfig:
    base_url: str
    api_key: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    max_retries: int = 3
    backoff_base_s: float = 0.5
    backoff_max_s: float = 8.0
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 300.0  # between two stream chunks, once the reply has started
    # Until the response headers arrive; env WAVE_FIRST_BYTE_TIMEOUT, seconds.
    # req: X14
    first_byte_timeout_s: float = field(default_factory=_first_byte_timeout_from_env)
    max_retry_time_s: float = MAX_RETRY_TIME_S
    provider: str | None = None  # the `provider` setting: "ollama" | "openai" | None (unsaid)
    # False: one plain JSON reply per request (the SDK's `stream=False`), no server-sent events.
    stream: bool = True


@record
class StreamDelta:
    kind: Literal["text", "reasoning", "tool_call"]
    text: str
    tool_index: int | None = None
    tool_name: str | None = None


@record(frozen=False)
class AssistantReply:
    content: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    finish_reason: str | None = None
    model: str | None = None
    attempts: int = 1
    elapsed_s: float = 0.0

    @property
    def cut(self) -> bool:
        """The reply stopped at the output limit (req: PV12): show "reply cut at the output limit"."""
        return self.finish_reason == "length"
