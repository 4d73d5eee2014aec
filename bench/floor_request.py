"""The floor for `wave -p`: interpreter + asyncio + httpx + one streamed chat request, answer printed.

Usage: python bench/floor_request.py BASE_URL  (e.g. http://127.0.0.1:PORT/v1)
"""

from __future__ import annotations

import asyncio
import json
import sys

import httpx


async def main(base_url: str) -> None:
    body = {
        "model": "test-model",
        "stream": True,
        "messages": [{"role": "user", "content": "hi"}],
    }
    parts: list[str] = []
    async with (
        httpx.AsyncClient(base_url=base_url) as client,
        client.stream("POST", "/chat/completions", json=body) as resp,
    ):
        async for line in resp.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                choices = json.loads(line[6:]).get("choices") or [{}]
                parts.append((choices[0].get("delta") or {}).get("content") or "")
    sys.stdout.write("".join(parts) + "\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
