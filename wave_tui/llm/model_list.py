"""The models an endpoint offers: `GET {base_url}/models`, the OpenAI model list, read with a
bounded wait (the `/model` picker shows them after the configured ones)."""

from __future__ import annotations

import asyncio
from typing import Any

from wave_tui.llm.errors import ModelError
from wave_tui.net.http import httpx

MODEL_LIST_TIMEOUT_S = 3.0  # the picker waits for this at most, then shows the configured models
MAX_LISTED_MODELS = 500  # a router offering thousands would make the picker useless


class ModelListUnavailable(ModelError):
    """The endpoint did not give a model list (unreachable, an error, another shape)."""


def models_url(base_url: str) -> httpx.URL:
    """`/models` joined to the base URL's path, its query kept (Azure's `api-version`)."""
    url = httpx.URL(base_url)
    return url.copy_with(path=url.path.rstrip("/") + "/models")


def model_ids(data: Any) -> tuple[str, ...]:
    """The ids of an OpenAI list (`{"data": [{"id": …}]}`), in the server's order."""
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ModelListUnavailable("the answer is not a model list")
    ids = (entry.get("id") for entry in entries if isinstance(entry, dict))
    unique = dict.fromkeys(i for i in ids if isinstance(i, str) and i.strip())
    return tuple(unique)[:MAX_LISTED_MODELS]


async def fetch_model_ids(
    http: httpx.AsyncClient, base_url: str, timeout_s: float = MODEL_LIST_TIMEOUT_S
) -> tuple[str, ...]:
    """Raises ModelListUnavailable with one line for the user."""
    url = models_url(base_url)
    try:
        async with asyncio.timeout(timeout_s):
            response = await http.get(
                url, headers={"Accept": "application/json"}, timeout=timeout_s
            )
    except (TimeoutError, httpx.TimeoutException):
        raise ModelListUnavailable(f"no answer within {timeout_s:g} s") from None
    except httpx.ConnectError:
        raise ModelListUnavailable(f"cannot reach {url}") from None
    except (httpx.HTTPError, ValueError) as exc:
        raise ModelListUnavailable(str(exc) or type(exc).__name__) from None
    if response.status_code != 200:
        raise ModelListUnavailable(f"HTTP {response.status_code}")
    try:
        return model_ids(response.json())
    except ValueError:
        raise ModelListUnavailable("the answer is not JSON") from None
