"""Ollama's context window (req: PV11): its OpenAI endpoint silently truncates prompts to
`num_ctx` (4,096 tokens unless the model or server sets more), so the input limit is read from
`/api/show` instead of being guessed.

The probe goes only to an endpoint known to be Ollama: its own port (11434), or one whose reply
carries Ollama's `system_fingerprint`. No other provider gets a request it never asked for.
"""

from __future__ import annotations

import re
from typing import Any

from wave_tui.net.http import httpx

OLLAMA_DEFAULT_NUM_CTX = 4096
OLLAMA_PORT = 11434  # Ollama's own port: an endpoint there is taken to be Ollama
# Ollama's OpenAI layer stamps every completion and chunk with this fingerprint.
OLLAMA_FINGERPRINT = "fp_ollama"
PROBE_TIMEOUT_S = 3.0
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def show_url(base_url: str) -> httpx.URL:
    """`http://host:11434/v1` → `http://host:11434/api/show` (the native API beside /v1)."""
    url = httpx.URL(base_url)
    path = url.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return url.copy_with(path=f"{path}/api/show", query=None)


def says_ollama(chunk: Any) -> bool:
    """A completion (or stream chunk) that Ollama's OpenAI layer produced."""
    return isinstance(chunk, dict) and chunk.get("system_fingerprint") == OLLAMA_FINGERPRINT


def context_limit_from_show(data: Any) -> int | None:
    """The prompt window of an `/api/show` answer; None when it is not Ollama's shape."""
    if not isinstance(data, dict) or not ("model_info" in data or "parameters" in data):
        return None
    params = data.get("parameters")
    found = _NUM_CTX.search(params) if isinstance(params, str) else None
    limit = int(found.group(1)) if found else OLLAMA_DEFAULT_NUM_CTX
    info = data.get("model_info")
    if isinstance(info, dict):
        trained = [
            v for k, v in info.items() if k.endswith(".context_length") and isinstance(v, int)
        ]
        if trained:
            limit = min(limit, *trained)
    return limit


async def probe_ollama_context(http: httpx.AsyncClient, base_url: str, model: str) -> int | None:
    """`num_ctx` of `model` when the endpoint is Ollama, else None (never raises)."""
    try:
        response = await http.post(
            show_url(base_url), json={"model": model}, timeout=PROBE_TIMEOUT_S
        )
        if response.status_code != 200:
            return None
        return context_limit_from_show(response.json())
    except (httpx.HTTPError, ValueError):
        return None
