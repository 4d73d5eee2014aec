"""The settings screen's connection test: one tiny real chat request to an endpoint."""

from __future__ import annotations

import time

from wave_tui.config.records import record
from wave_tui.llm.client import ClientConfig, ModelClient
from wave_tui.llm.errors import ModelError

CONNECTION_TIMEOUT_S = 15.0


@record
class ConnectionCheck:
    ok: bool
    message: str


# req: UX20
async def check_connection(base_url: str, api_key: str, model: str) -> ConnectionCheck:
    """One tiny real chat request to the endpoint, with these values (saved or not)."""
    if not base_url.strip():
        return ConnectionCheck(False, "Enter the endpoint (base URL) first.")
    if not model.strip():
        return ConnectionCheck(False, "Enter a model first.")
    config = ClientConfig(
        base_url=base_url.strip(),
        api_key=api_key.strip() or None,
        read_timeout_s=CONNECTION_TIMEOUT_S,
        connect_timeout_s=CONNECTION_TIMEOUT_S,
    )
    client = ModelClient(config)
    body = {
        "model": model.strip(),
        "messages": [{"role": "user", "content": "Reply with OK."}],
        "max_tokens": 1,
        "stream": True,
    }
    started = time.monotonic()
    try:
        await client.stream_chat(body)
    except ModelError as exc:
        return ConnectionCheck(False, f"Connection failed: {exc}")
    except Exception as exc:  # an unexpected answer is still an answer for the user
        return ConnectionCheck(False, f"Connection failed: {type(exc).__name__}: {exc}")
    finally:
        await client.aclose()
    elapsed = time.monotonic() - started
    return ConnectionCheck(True, f"Connected: {model.strip()} answered in {elapsed:.1f} s.")
