"""The settings screen's door: read and save the user settings and the endpoint (UX6, UX20).

A save writes `~/.wave/settings.json` and reloads the store: the status shows the change at
once, the agent applies it from the next turn.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from wave_tui.config.paths import display_path
from wave_tui.config.records import record
from wave_tui.config.schema import settings_fields
from wave_tui.config.settings import EffectiveSettings, save_user_settings
from wave_tui.session.connection_check import ConnectionCheck, check_connection
from wave_tui.session.core import SessionCore
from wave_tui.session.endpoint_settings import (
    EndpointInUse,
    EndpointSettings,
    endpoint_in_use,
    read_endpoint,
    save_endpoint,
)
from wave_tui.session.model_menu import (
    ModelChoice,
    ModelMenu,
    OfferedModels,
    endpoint_models,
    model_choices,
    model_menu,
)


@record
class EditableSettings:
    """The user settings the settings screen edits: the switch and frequency as in force, the
    language and model as written in `~/.wave/settings.json` (empty: not set there)."""

    auto_memory_enabled: bool
    auto_memory_frequency: int
    language: str
    model: str
    auto_memory_review: bool = False


EndpointKey = tuple[str, str | None, tuple[tuple[str, str], ...]]


class SettingsAccess:
    def __init__(self, core: SessionCore) -> None:
        self._core = core
        # The endpoint's model list, read once per session and endpoint (a failure is not kept:
        # the next `/model` asks again).
        self._offered: dict[EndpointKey, OfferedModels] = {}

    def current(self) -> EffectiveSettings:
        return self._core.store.current()

    async def read(self) -> EditableSettings:
        raw = await asyncio.to_thread(_read_json_object, self._core.paths.user_settings)
        effective = self.current()
        return EditableSettings(
            auto_memory_enabled=effective.auto_memory_enabled,
            auto_memory_frequency=effective.auto_memory_frequency,
            language=str(raw.get("language") or ""),
            model=str(raw.get("model") or ""),
            auto_memory_review=effective.auto_memory_review,
        )

    @staticmethod
    def help(name: str) -> str:
        """The schema's description of a settings key or WAVE_* variable (the settings form)."""
        for item in settings_fields():
            if name in (item.key, item.env):
                return item.description
        return ""

    async def save(self, **changes: Any) -> None:
        """Write keys of `~/.wave/settings.json` (None removes one), then reload."""
        await asyncio.to_thread(save_user_settings, self._core.paths, **changes)
        self._reloaded()

    async def read_endpoint(self) -> EndpointSettings:
        return await asyncio.to_thread(read_endpoint, self._core.paths)

    async def endpoint_in_use(self) -> EndpointInUse:
        """The base URL and key the agent uses, each with where it comes from."""
        store = self._core.store
        paths = self._core.paths

        def found() -> EndpointInUse:
            return endpoint_in_use(
                store.environ,
                store.layers(),
                lambda p: display_path(p, paths.project_root, paths.home),
            )

        return await asyncio.to_thread(found)

    # req: UX20
    async def save_endpoint(self, endpoint: EndpointSettings) -> None:
        """Base URL and API key into `env`, the models into `model`/`fastModel`; mode 0600."""
        await asyncio.to_thread(save_endpoint, self._core.paths, endpoint)
        self._reloaded()

    def _reloaded(self) -> None:
        self._core.store.refresh()
        self._core.status_changed()

    # req: UX20
    async def test_connection(self, base_url: str, api_key: str, model: str) -> ConnectionCheck:
        """One small real request to the endpoint with these (unsaved) values; an empty field
        falls back to the value in force (environment or settings)."""
        current = self.current()
        return await check_connection(
            base_url or current.base_url or "",
            api_key or current.api_key or "",
            model or self.model_in_use() or "",
        )

    # req: UX6
    def problems(self) -> list[str]:
        """What is wrong in the settings files now (one line each; empty when all is well)."""
        return list(self.current().problems)

    def model_in_use(self) -> str | None:
        """The model the agent uses (--model / WAVE_MODEL win over the settings file)."""
        service = self._core.service
        return service.model if service is not None else self.current().model

    # req: FH10
    def fast_model_in_use(self) -> str | None:
        """The fast model the agent uses (WAVE_FAST_MODEL wins over the settings file); None:
        side jobs use the main model."""
        return self.current().fast_model or None

    def model_choices(self) -> list[ModelChoice]:
        """The configured models (`model`, `fastModel`, `models.*`) for the `/model` picker."""
        return model_choices(self.model_in_use(), self.current())

    async def model_menu(self) -> ModelMenu:
        """The `/model` picker: the configured models, then those the endpoint lists."""
        settings = self.current()
        key: EndpointKey = (
            settings.base_url or "",
            settings.api_key,
            tuple(sorted(settings.custom_headers.items())),
        )
        offered = self._offered.get(key)
        if offered is None:
            offered = await endpoint_models(settings)
            if not offered.problem:
                self._offered[key] = offered
        current = self.model_in_use()
        return model_menu(model_choices(current, settings), offered, current)

    async def watch(self) -> AsyncIterator[EffectiveSettings]:
        """Settings as they change on disk (subscribers are told; see `subscribe`)."""
        async for settings in self._core.store.watch():
            yield settings


def _read_json_object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
