"""An MCP `tools/call` result as a wave tool result (text, images, structured content, notes,
caps)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wave_tui.files.images import ImageError, encode_image
from wave_tui.llm.types import ImagePart
from wave_tui.mcp.foreign_text import defang
from wave_tui.tools.base import ToolResult, error_result
from wave_tui.tools.image_read import image_part

# A result longer than this is cut, with a note; about the size of a large file read.
MCP_RESULT_MAX_CHARS = 40_000
INSTRUCTIONS_MAX_BYTES = 2048
# Images of one result sent to the model; more are named, not sent.
MCP_RESULT_MAX_IMAGES = 4
MEDIA_KINDS = ("image", "audio")


def _blob_bytes(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _block_text(block: Any) -> str | None:  # req: MC4
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in MEDIA_KINDS:
        size = _blob_bytes(str(getattr(block, "data", "")))
        return f"[{kind} result ({block.mimeType}, {size:,} bytes) — not shown to the model]"
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        if text is not None:
            return f"[resource {resource.uri}]\n{text}"
        mime = getattr(resource, "mimeType", None) or "binary"
        return f"[resource {resource.uri} ({mime}) — binary content not shown]"
    if kind == "resource_link":
        return f"[resource link: {block.uri}]"
    return None


# req: MA7
def _image(block: Any, label: str, index: int) -> ImagePart | str:
    """An image block as the part the model sees (decoded, checked, fitted like a Read of an
    image file), or the line that says why it is not one."""
    mime = str(getattr(block, "mimeType", "") or "image")
    try:
        raw = base64.b64decode(str(getattr(block, "data", "")), validate=True)
        name = f"{label.replace('/', '-')}-{index}.{mime.rsplit('/', 1)[-1]}"
        encoded = encode_image(Path(name), raw)
    except (binascii.Error, ValueError, ImageError) as exc:
        why = str(exc).split(": ", 1)[-1] if isinstance(exc, ImageError) else "not valid base64"
        return f"[image result ({mime}) — not shown to the model: {why}]"
    return image_part(encoded)


def cap_text(text: str, limit: int = MCP_RESULT_MAX_CHARS) -> str:  # req: MC4
    if len(text) <= limit:
        return text
    return (
        text[:limit]
        + f"\n\n[MCP result cut at {limit:,} of {len(text):,} characters "
        + "(MCP_RESULT_MAX_CHARS); ask the tool for less]"
    )


def convert_result(  # req: MC4
    content: Sequence[Any], structured: dict[str, Any] | None, is_error: bool, label: str
) -> ToolResult:
    """`label` names the tool in the one-line summary (`server/tool`). Runs image decoding:
    call it off the event loop. The text is the server's, so wave's own tags in it are
    defanged, as in its resources and prompts."""
    parts: list[str] = []
    images: list[ImagePart] = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "image" and len(images) < MCP_RESULT_MAX_IMAGES:
            image = _image(block, label, len(images) + 1)
            if isinstance(image, str):
                parts.append(image)
            else:
                images.append(image)
                parts.append(f"[image result {len(images)}: {image.width}×{image.height}]")
            continue
        line = _block_text(block)
        if line is not None:
            parts.append(line)
    # Servers send structured content with its serialisation as text (the spec asks them to);
    # the JSON is added only when there is neither text nor media, so it is never there twice
    # (nor an image's base64 sent again as text).
    kinds = {getattr(b, "type", None) for b in content}
    if structured is not None and not kinds & {"text", *MEDIA_KINDS}:
        parts.append(json.dumps(structured, ensure_ascii=False, indent=2))
    text = defang(cap_text("\n\n".join(parts))) if parts else "(no output)"
    if is_error:
        first = text.splitlines()[0] if text.strip() else "error"
        return ToolResult(content=text, is_error=True, summary=f"{label}: {first[:120]}")
    return ToolResult(content=text, summary=f"{label}: {len(text):,} characters", images=images)


def call_failed(message: str) -> ToolResult:  # req: MC4
    """A failed call as the model sees it: the server's words in `message` (its error's
    message, its last stderr line) capped and defanged like a result."""
    return error_result(defang(cap_text(message)))


def cap_instructions(text: str, limit: int = INSTRUCTIONS_MAX_BYTES) -> str:
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", errors="ignore") + "\n[instructions cut at 2048 bytes]"
