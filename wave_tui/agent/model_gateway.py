"""The model client for the settings in force: built by an injected factory, rebuilt when the
endpoint, key, headers or model change, and every replaced client closed (owned tasks)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from wave_tui.agent.prompts import NOT_CONFIGURED_HELP
from wave_tui.config.records import record
from wave_tui.config.settings import EffectiveSettings
from wave_tui.llm.errors import ModelNotConfigured
from wave_tui.llm.replies import ClientConfig

if TYPE_CHECKING:
    from wave_tui.llm.client import ModelClient

ClientFactory = Callable[[ClientConfig], "ModelClient"]


def default_client_factory(config: ClientConfig) -> ModelClient:
    # The HTTP stack loads with the first client, not with the app (its first frame).
    from wave_tui.llm.client import ModelClient

    return ModelClient(config)


@record(frozen=False)
class ModelTarget:
    model: str
    client: ModelClient
    key: tuple[Any, ...]


class ModelGateway:
    def __init__(self, factory: ClientFactory = default_client_factory) -> None:
        self._factory = factory
        self._target: ModelTarget | None = None
        self._closing: set[asyncio.Task[None]] = set()
        # False: every model request asks for its whole reply at once (the SDK's `stream`).
        self.streaming = True

    # req: X14
    def target(self, settings: EffectiveSettings, model: str | None) -> ModelTarget:
        """The client for `model` at the configured endpoint. Raises ModelNotConfigured."""
        if not model or not settings.base_url:
            raise ModelNotConfigured(NOT_CONFIGURED_HELP)
        key = (
            model,
            settings.base_url,
            settings.api_key,
            tuple(sorted(settings.custom_headers.items())),
            settings.first_byte_timeout,
            settings.provider,
            self.streaming,
        )
        if self._target is None or self._target.key != key:
            old = self._target
            config = ClientConfig(
                base_url=settings.base_url,
                api_key=settings.api_key,
                headers=dict(settings.custom_headers),
                provider=settings.provider,
                stream=self.streaming,
            )
            if settings.first_byte_timeout is not None:
                config = replace(config, first_byte_timeout_s=settings.first_byte_timeout)
            self._target = ModelTarget(model, self._factory(config), key)
            if old is not None:
                task = asyncio.get_running_loop().create_task(old.client.aclose())
                self._closing.add(task)
                task.add_done_callback(self._closing.discard)
        return self._target

    async def aclose(self) -> None:
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        if self._target is not None:
            await self._target.client.aclose()
            self._target = None
