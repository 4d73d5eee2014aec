"""The floor for `wave -p --continue`: interpreter + asyncio + httpx, the transcript read and each
line parsed, every message sent back with one new prompt in one streamed request, answer printed.

Usage: python bench/floor_resume.py BASE_URL TRANSCRIPT  (BASE_URL e.g. http://127.0.0.1:PORT/v1)
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx


def _wire(line: dict[str, Any]) -> dict[str, Any]:
    """The transcript's message as the chat format has it (the keys it shares, renamed)."""
    out = {"role": line["role"], "content": line.get("content", "")}
    if line.get("toolCalls"):
        out["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for c in line["toolCalls"]
        ]
    if line.get("toolCallId"):
        out["tool_call_id"] = line["toolCallId"]
    return out


async def main(base_url: str, raw: bytes) -> None:
    lines = [json.loads(line) for line in raw.split(b"\n") if line.strip()]
    messages = [_wire(line) for line in lines]
    body = {
        "model": "test-model",
        "stream": True,
        "messages": [*messages, {"role": "user", "content": "hi"}],
    }
    parts: list[str] = []
    async with (
        httpx.AsyncClient(base_url=base_url, timeout=600) as client,
        client.stream("POST", "/chat/completions", json=body) as resp,
    ):
        async for line in resp.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                choices = json.loads(line[6:]).get("choices") or [{}]
                parts.append((choices[0].get("delta") or {}).get("content") or "")
    sys.stdout.write("".join(parts) + "\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]).read_bytes()))
