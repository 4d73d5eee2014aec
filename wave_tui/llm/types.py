"""Data that crosses layers: conversation messages, tool calls, usage.

Messages are persisted one per line in the session transcript (camelCase keys, `isMeta` kept).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

Role = Literal["user", "assistant", "tool"]
MessageKind = Literal["normal", "compress"]


def new_id(prefix: str = "msg") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class ToolCall(_Camel):
    id: str
    name: str
    arguments: str = "{}"  # raw JSON text, exactly as the model produced it


class Usage(_Camel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    # The endpoint sent no usage: counted from characters.
    estimated: bool = False  # req: PV9

    @property
    def cache_hit_ratio(self) -> float:
        return self.cache_read_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


# req: IM6
class ImagePart(_Camel):
    """An image a message carries (a Read of an image, an `@img.png`), encoded once: its bytes
    are sent as they are stored, so a later request (or the extraction fork) repeats them
    byte for byte."""

    name: str
    media_type: str
    data: str  # base64
    width: int
    height: int
    original_width: int
    original_height: int
    byte_size: int = 0


class Message(_Camel):
    """One conversation message. The system prompt is never a Message: it is rebuilt per request."""

    role: Role
    content: str = ""
    id: str = Field(default_factory=new_id)
    reasoning: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_meta: bool = False
    kind: MessageKind = "normal"
    timestamp: str = Field(default_factory=utc_now_iso)
    usage: Usage | None = None
    # Free-form provenance (e.g. {"ruleId": "api.md"} or {"nestedMemory": "pkg/AGENTS.md"}).
    meta: dict[str, Any] = Field(default_factory=dict)
    # None rather than []: a message without images is written as it always was.
    images: list[ImagePart] | None = None

    def to_json_line(self) -> str:
        return self.model_dump_json(by_alias=True, exclude_none=True)

    @classmethod
    def user(cls, content: str, *, is_meta: bool = False, **meta: Any) -> Message:
        return cls(role="user", content=content, is_meta=is_meta, meta=meta)


class ToolSpec(BaseModel):
    """A tool as offered to the model (OpenAI function format)."""

    name: str
    description: str
    parameters: dict[str, Any]

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }
