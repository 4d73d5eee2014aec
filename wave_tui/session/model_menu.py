"""What the `/model` picker offers: the configured models first, then those the endpoint lists."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from wave_tui.config.records import record
from wave_tui.config.settings import EffectiveSettings
from wave_tui.llm.client import ClientConfig, ModelClient
from wave_tui.llm.errors import ModelError
from wave_tui.llm.model_list import MODEL_LIST_TIMEOUT_S

ModelRole = Literal["main", "fast", "configured", "endpoint"]


@record
class ModelChoice:
    name: str
    role: ModelRole
    current: bool


def model_choices(current: str | None, settings: EffectiveSettings) -> list[ModelChoice]:
    """`model`, `fastModel` and every `models.*` name, the main one first."""
    out: list[ModelChoice] = []
    seen: set[str] = set()

    def add(name: str | None, role: ModelRole) -> None:
        if name and name not in seen:
            seen.add(name)
            out.append(ModelChoice(name, role, name == current))

    add(settings.model, "main")
    add(current, "main")
    add(settings.fast_model, "fast")
    for name in sorted(settings.models):
        add(name, "configured")
    return out


@record
class ModelMenu:
    """What the `/model` picker offers; `note` is one line when the endpoint's own list could
    not be read (the configured models are offered all the same)."""

    choices: tuple[ModelChoice, ...]
    note: str = ""


@record
class OfferedModels:
    """The endpoint's model list, or why there is none."""

    ids: tuple[str, ...]
    problem: str = ""


def model_menu(
    configured: Sequence[ModelChoice], offered: OfferedModels, current: str | None
) -> ModelMenu:
    """The configured models first, then the endpoint's others in its own order."""
    seen = {c.name for c in configured}
    extra = [ModelChoice(name, "endpoint", name == current) for name in offered.ids]
    choices = (*configured, *(c for c in extra if c.name not in seen))
    note = (
        f"The endpoint's model list could not be read: {offered.problem}" if offered.problem else ""
    )
    return ModelMenu(choices, note)


async def endpoint_models(settings: EffectiveSettings) -> OfferedModels:
    """`GET {base_url}/models` with the key and headers in force; never raises."""
    if not settings.base_url:
        return OfferedModels(())
    config = ClientConfig(
        base_url=settings.base_url,
        api_key=settings.api_key,
        headers=dict(settings.custom_headers),
        connect_timeout_s=MODEL_LIST_TIMEOUT_S,
        read_timeout_s=MODEL_LIST_TIMEOUT_S,
    )
    client = ModelClient(config)
    try:
        return OfferedModels(await client.list_models())
    except ModelError as exc:
        return OfferedModels((), str(exc))
    finally:
        await client.aclose()
