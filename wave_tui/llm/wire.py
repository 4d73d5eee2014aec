"""Conversion of conversation messages to the OpenAI chat-completions wire format."""

from __future__ import annotations

import copy
from typing import Any

from wave_tui.llm.images import image_wire_parts
from wave_tui.llm.types import Message

CACHE_MARK: dict[str, str] = {"type": "ephemeral"}
COMPRESS_PREFIX = "[Conversation summary]\n"
REASONING_FIELD = "reasoning_content"


# req: SX2
def unstreamed(body: dict[str, Any]) -> dict[str, Any]:
    """The request body asking for the whole reply as one JSON object instead of a stream."""
    out = {k: v for k, v in body.items() if k != "stream_options"}
    out["stream"] = False
    return out


# req: AC2
def system_message(static: str, dynamic: str, *, cache: bool) -> dict[str, Any]:
    """The system prompt: a list of text parts, static block first (cache-marked when caching)."""
    static_part: dict[str, Any] = {"type": "text", "text": static}
    if cache:
        static_part["cache_control"] = dict(CACHE_MARK)
    parts = [static_part]
    if dynamic:
        parts.append({"type": "text", "text": dynamic})
    return {"role": "system", "content": parts}


# req: PV2
def message_to_wire(message: Message) -> dict[str, Any]:
    if message.role == "assistant":
        wire: dict[str, Any] = {"role": "assistant", "content": message.content or None}
        if message.tool_calls:
            wire["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in message.tool_calls
            ]
        if wire["content"] is None and not message.tool_calls:
            wire["content"] = ""
        if message.tool_calls and message.reasoning:
            # DeepSeek thinking mode and Kimi answer 400 without it; the client renames the
            # field to the one the provider streams.
            wire[REASONING_FIELD] = message.reasoning
        return wire
    if message.role == "tool":
        result: Any = message.content
        if message.images:
            result = [{"type": "text", "text": message.content}, *image_wire_parts(message.images)]
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": result}
    content: Any = message.content
    if message.kind == "compress":
        content = COMPRESS_PREFIX + content
    if message.images:
        content = [{"type": "text", "text": content}, *image_wire_parts(message.images)]
    return {"role": "user", "content": content}


def mark_last_message(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return a copy whose last message carries the cache mark on its last text part."""
    if not messages:
        return messages
    out = list(messages)
    last = copy.deepcopy(out[-1])
    content = last.get("content")
    if isinstance(content, str):
        last["content"] = [{"type": "text", "text": content, "cache_control": dict(CACHE_MARK)}]
    elif isinstance(content, list) and content:
        content[-1]["cache_control"] = dict(CACHE_MARK)
    else:
        return out  # an assistant message with only tool calls: nothing to mark
    out[-1] = last
    return out


def strip_cache_marks(value: Any) -> Any:
    """A copy of a request body (or part) without any `cache_control` key."""
    if isinstance(value, dict):
        return {k: strip_cache_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_marks(v) for v in value]
    return value


def _has_mark(value: Any) -> bool:
    if isinstance(value, dict):
        return "cache_control" in value or any(_has_mark(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_mark(v) for v in value)
    return False


def _parts(content: Any) -> list[Any]:
    if isinstance(content, list):
        return copy.deepcopy(content)
    return [{"type": "text", "text": content if isinstance(content, str) else ""}]


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p
        )
    return ""


def plain_system(message: dict[str, Any]) -> dict[str, Any]:
    """The system message with its text parts joined into one string, unless a part carries a
    cache mark (req: PV6: Groq and several chat templates reject a list there)."""
    content = message.get("content")
    if message.get("role") != "system" or not isinstance(content, list) or _has_mark(content):
        return message
    return {**message, "content": _text_of(content)}


# A meta message with this meta key joins the next user message, never the one before it: the
# interruption note is read before the prompt that follows it (and never inside the prompt that
# was abandoned).
JOINS_NEXT = "joinsNext"
# The user's own words after a tool result, or after a prompt that got no reply, where a provider
# wants user and assistant to alternate strictly: what the assistant "said" in between.
BRIDGE_TEXT = "(no reply)"


def _is_meta(message: Message) -> bool:
    """Not the user's own words: isMeta text (rules, nested memory, notices) or a summary."""
    return message.is_meta or message.kind == "compress"


def _joins_previous(message: Message) -> bool:
    return _is_meta(message) and not message.meta.get(JOINS_NEXT)


def wire_messages(messages: list[Message], reminder: str | None = None) -> list[dict[str, Any]]:
    """Wire messages for `messages`, the transient `reminder` first (req: PV6).

    Folding is for isMeta text only: a meta message joins the user message before it as a
    further content part, or is folded into the tool result before it (Mistral rejects `user`
    after `tool`). The user's own words are always a user message of their own, starting
    after a meta-only user message (the reminder, the interruption note) or anything else; a
    prompt is never merged into another prompt. The fold looks only backwards, so a request's
    prefix is the same in every later request (prompt caching). The transcript keeps each
    message as it was."""
    fold = _Fold(reminder)
    fold.extend(messages)
    return fold.out


class _Fold:
    """The wire messages of a history so far; `extend` goes on where the last one stopped.

    Every step only looks back and replaces `out[-1]` (never changes a dict in place), so the
    state after N messages is the same whether they came in one call or several."""

    def __init__(self, reminder: str | None) -> None:
        self.out: list[dict[str, Any]] = []
        self.meta_only: set[int] = set()  # indexes in `out` of user messages of meta text only
        if reminder:
            self.out.append({"role": "user", "content": reminder})
            self.meta_only.add(0)

    def extend(self, messages: list[Message]) -> None:
        out, meta_only = self.out, self.meta_only
        for message in messages:
            wire = message_to_wire(message)
            prev = out[-1] if out else None
            last = len(out) - 1
            if message.role != "user" or prev is None:
                out.append(wire)
                if message.role == "user" and _is_meta(message):
                    meta_only.add(len(out) - 1)
                continue
            if _joins_previous(message) and prev.get("role") == "tool":
                out[-1] = _fold_into_tool(prev, wire["content"])
            elif prev.get("role") == "user" and (_joins_previous(message) or last in meta_only):
                out[-1] = {**prev, "content": _parts(prev.get("content")) + _parts(wire["content"])}
                if not _is_meta(message):
                    meta_only.discard(last)
            else:
                out.append(wire)
                if _is_meta(message):
                    meta_only.add(len(out) - 1)

    def copy(self) -> _Fold:
        twin = _Fold(None)
        twin.out, twin.meta_only = list(self.out), set(self.meta_only)
        return twin


# req: SP5
class WireHistory:
    """`wire_messages` for one agent's requests, each continued from the last one's.

    A session's history only grows between two requests (a rewind, a compaction or a resume
    puts a new list of new messages in its place): the messages already folded are the same
    objects, and only the new tail is converted. The dicts of the folded prefix are the same
    objects from request to request too, which lets the body encoder reuse their bytes
    (`llm/body_json.py`). Messages are never changed once in the history."""

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._reminder: str | None = None
        self._fold = _Fold(None)

    def wire(self, messages: list[Message], reminder: str | None) -> list[dict[str, Any]]:
        done = self._messages
        same_prefix = (
            reminder == self._reminder
            and len(messages) >= len(done)
            and all(a is b for a, b in zip(messages, done))  # noqa: B905 (checked above)
        )
        if same_prefix:
            fold = self._fold.copy()
            fold.extend(messages[len(done) :])
        else:
            fold = _Fold(reminder)
            fold.extend(messages)
        self._messages, self._reminder, self._fold = list(messages), reminder, fold.copy()
        return fold.out


# req: CV5
def bridge_roles(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Strict alternation (a Mistral / Gemma chat template): a short assistant message between
    a user message and what it follows when that is a tool result or another user message."""
    out: list[dict[str, Any]] = []
    for message in messages:
        prev = out[-1] if out else None
        if (
            message.get("role") == "user"
            and prev is not None
            and prev.get("role") in ("user", "tool")
        ):
            out.append({"role": "assistant", "content": BRIDGE_TEXT})
        out.append(message)
    return out


def _fold_into_tool(tool: dict[str, Any], content: Any) -> dict[str, Any]:
    before = tool.get("content")
    if _has_mark(content) or isinstance(before, list):
        # Keep the moving cache mark on its part: parts are accepted where caching is on.
        return {**tool, "content": _parts(before) + _parts(content)}
    return {**tool, "content": f"{_text_of(before)}\n\n{_text_of(content)}"}
