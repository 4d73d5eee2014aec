"""An MCP `tools/call` result as a wave tool result (text, structured content, notes, caps)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any

from wave_tui.tools.base import ToolResult

# A result longer than this is cut, with a note; about the size of a large file read.
MCP_RESULT_MAX_CHARS = 40_000
INSTRUCTIONS_MAX_BYTES = 2048


def _blob_bytes(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _block_text(block: Any) -> str | None:  # req: MC4
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
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
    """`label` names the tool in the one-line summary (`server/tool`)."""
    parts = [t for t in (_block_text(b) for b in content) if t is not None]
    # Servers send structured content with its serialisation as text (the spec asks them to);
    # the JSON is added only when there is no text, so it is never there twice.
    if structured is not None and not any(getattr(b, "type", None) == "text" for b in content):
        parts.append(json.dumps(structured, ensure_ascii=False, indent=2))
    text = cap_text("\n\n".join(parts)) if parts else "(no output)"
    if is_error:
        first = text.splitlines()[0] if text.strip() else "error"
        return ToolResult(content=text, is_error=True, summary=f"{label}: {first[:120]}")
    return ToolResult(content=text, summary=f"{label}: {len(text):,} characters")


def cap_instructions(text: str, limit: int = INSTRUCTIONS_MAX_BYTES) -> str:
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", errors="ignore") + "\n[instructions cut at 2048 bytes]"
