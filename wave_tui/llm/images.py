"""Images on the wire: OpenAI `image_url` parts with data URLs, the placeholder a model that
cannot see gets instead, images moved out of tool messages for providers that refuse them
there, and which error bodies mean "no images" (IM1, IM4).

Each image goes on the wire as two parts: its label `[image: NAME, W×H]` (the original size)
and the `image_url` part. The label is what the placeholder is made from, so every step here
works on wire dicts alone and the transcript is never touched.
"""

from __future__ import annotations

import base64
import re
import struct
from typing import Any

from wave_tui.llm.quirks import matches_any
from wave_tui.llm.types import ImagePart

IMAGE_PART_TYPES = ("image_url", "image", "input_image")
LABEL_RE = re.compile(r"^\[image: (?P<name>.+), (?P<w>\d+)×(?P<h>\d+)\]$")
NO_VISION = "this model cannot see images"
FALLBACK_IMAGE_TOKENS = 1500  # an image whose header does not say its size

# A provider that refuses images outright (IM4: learned as non-vision for the session).
# Pattern texts, compiled (and cached) by `re` when a request first fails, not at start-up.
NO_IMAGES_PATTERNS: tuple[str, ...] = (
    r"does not support (?:image|vision|multimodal)",  # Ollama, DeepSeek, llama.cpp
    r"(?:image|vision|multimodal)(?: input)?s? (?:is|are) not supported",  # vLLM, LM Studio
    r"unknown variant [`']?image_url",  # DeepSeek's deserializer
    r"image input is not (?:supported|enabled)",
    r"no (?:image|vision) support",
    r"mmproj",  # llama.cpp started without a multimodal projector
)
# A provider that takes images, but only in user messages (OpenAI itself).
TOOL_IMAGE_PATTERNS: tuple[str, ...] = (
    r"image.{0,40}only (?:allowed|supported) .{0,40}role '?user",  # OpenAI
    r"tool messages? (?:may|can|must) (?:only|not) .{0,40}(?:text|image)",
    r"role '?tool'?.{0,60}image",
)


def image_label(image: ImagePart) -> str:
    return f"[image: {image.name}, {image.original_width}×{image.original_height}]"


def placeholder(label: str) -> str:
    """`[image: NAME, W×H: this model cannot see images]` from an image's label."""
    return f"{label[:-1]}: {NO_VISION}]"


def image_wire_parts(images: list[ImagePart]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for image in images:
        parts.append({"type": "text", "text": image_label(image)})
        url = f"data:{image.media_type};base64,{image.data}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def _is_image(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in IMAGE_PART_TYPES


def _is_label(part: Any) -> bool:
    return (
        isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
        and LABEL_RE.match(part["text"]) is not None
    )


def has_images(messages: list[dict[str, Any]]) -> bool:
    # Asked of every request: a plain loop that looks into list contents only.
    for m in messages:
        content = m.get("content")
        if isinstance(content, list) and any(_is_image(p) for p in content):
            return True
    return False


def _placeholders(content: list[Any]) -> list[Any]:
    out: list[Any] = []
    for part in content:
        if not _is_image(part):
            out.append(part)
            continue
        label = out.pop() if out and _is_label(out[-1]) else None
        text = placeholder(label["text"]) if label else f"[image: {NO_VISION}]"
        replaced: dict[str, Any] = {"type": "text", "text": text}
        if "cache_control" in part:
            replaced["cache_control"] = part["cache_control"]
        out.append(replaced)
    return out


# req: IM4
def without_images(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with each image replaced by its placeholder (a model that cannot see)."""
    return [
        {**m, "content": _placeholders(m["content"])} if isinstance(m.get("content"), list) else m
        for m in messages
    ]


def images_after_tools(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Images of tool messages moved to the user part that follows the round's tool messages
    (a new user message, or the front of the next one)."""
    out: list[dict[str, Any]] = []
    moved: list[Any] = []
    for message in messages:
        if moved and message.get("role") != "tool":
            if message.get("role") == "user":
                content = message.get("content")
                rest = content if isinstance(content, list) else [{"type": "text", "text": content}]
                out.append({**message, "content": [*moved, *rest]})
                moved = []
                continue
            out.append({"role": "user", "content": moved})
            moved = []
        content = message.get("content")
        if message.get("role") == "tool" and isinstance(content, list):
            kept: list[Any] = []
            for part in content:
                if _is_image(part):
                    if kept and _is_label(kept[-1]):
                        moved.append(kept.pop())
                    moved.append(part)
                else:
                    kept.append(part)
            if len(kept) != len(content):
                message = {**message, "content": kept or ""}
        out.append(message)
    if moved:
        out.append({"role": "user", "content": moved})
    return out


def refuses_images(text: str) -> bool:
    return matches_any(NO_IMAGES_PATTERNS, text)


def refuses_tool_images(text: str) -> bool:
    return matches_any(TOOL_IMAGE_PATTERNS, text)


# -- token estimates ----------------------------------------------------------------------------


def image_tokens(width: int, height: int) -> int:
    """An image's cost to the model: a token per ~750 pixels (Anthropic's rule of thumb; OpenAI's
    tiles come out close)."""
    return max(1, (width * height + 749) // 750)


def _size_of(raw: bytes) -> tuple[int, int] | None:
    """Width and height from the first bytes of a PNG, GIF, WebP or JPEG."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n") and len(raw) >= 24:
        width, height = struct.unpack(">II", raw[16:24])
        return int(width), int(height)
    if raw[:6] in (b"GIF87a", b"GIF89a") and len(raw) >= 10:
        width, height = struct.unpack("<HH", raw[6:10])
        return int(width), int(height)
    if raw.startswith(b"\xff\xd8"):
        i = 2
        while i + 9 < len(raw):
            if raw[i] != 0xFF:
                return None
            marker = raw[i + 1]
            length = int.from_bytes(raw[i + 2 : i + 4], "big")
            if marker in (0xC0, 0xC1, 0xC2):
                height, width = struct.unpack(">HH", raw[i + 5 : i + 9])
                return int(width), int(height)
            i += 2 + length
    return None


def url_tokens(url: str) -> int:
    """The estimated tokens of an image data URL (its header decoded, not the whole image)."""
    _head, _sep, data = url.partition("base64,")
    try:
        raw = base64.b64decode(data[:87_384] + "=" * (-min(len(data), 87_384) % 4))
    except ValueError:
        return FALLBACK_IMAGE_TOKENS
    size = _size_of(raw)
    return image_tokens(*size) if size else FALLBACK_IMAGE_TOKENS


def split_image_tokens(value: Any) -> tuple[Any, int]:
    """`value` (a body or part of one) with every image data URL emptied, and their tokens."""
    if isinstance(value, dict):
        if _is_image(value):
            inner = value.get("image_url")
            url = inner.get("url") if isinstance(inner, dict) else value.get("image_url")
            tokens = url_tokens(url) if isinstance(url, str) else FALLBACK_IMAGE_TOKENS
            return {"type": value.get("type")}, tokens
        total = 0
        out: dict[str, Any] = {}
        for key, item in value.items():
            out[key], tokens = split_image_tokens(item)
            total += tokens
        return out, total
    if isinstance(value, list):
        items: list[Any] = []
        total = 0
        for item in value:
            stripped, tokens = split_image_tokens(item)
            items.append(stripped)
            total += tokens
        return items, total
    return value, 0
