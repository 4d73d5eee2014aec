"""The parts of the `AgentSession` facade, and their methods by the names the front ends call.

Each part has one concern and shares the `SessionCore`: `memory` (the memory browser),
`settings_access` (the settings screen), `permissions` (the permission dialog, the mode, trust),
`inputs` (the input line: `!cmd`, `@path`, slash commands, history) and `picker` (the resume
picker). The methods below only delegate: the behaviour and its documentation live in the part.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wave_tui.session.core import SessionCore
from wave_tui.session.inputs import InputAccess

if TYPE_CHECKING:
    from wave_tui.agent.commands import CommandResult
    from wave_tui.agent.sessions import SessionInfo
    from wave_tui.config.settings import EffectiveSettings, PermissionMode
    from wave_tui.config.trust import TrustRequested
    from wave_tui.permissions.policy import GrantOption
    from wave_tui.session.browser import MemoryBrowserAccess
    from wave_tui.session.editable_settings import EditableSettings, SettingsAccess
    from wave_tui.session.endpoint_settings import EndpointInUse, EndpointSettings
    from wave_tui.session.grants import PermissionAccess
    from wave_tui.session.memory_access import (
        AddResult,
        MemoryEntry,
        MemoryScope,
        PendingWrite,
        RevertResult,
        Run,
    )
    from wave_tui.session.picker import SessionPicker
    from wave_tui.session.ui_queries import (
        CommandChoice,
        ConnectionCheck,
        ModelChoice,
        ModelMenu,
        PermissionPreview,
        PermissionState,
        SessionSummary,
    )


class SessionParts:
    """The parts a screen uses are made (and their modules imported) when first asked for:
    `wave -p` runs a turn with the input part only, and pays only for it."""

    def __init__(self, core: SessionCore) -> None:
        self._core = core
        self.inputs = InputAccess(core)

    @cached_property
    def memory(self) -> MemoryBrowserAccess:
        from wave_tui.session.browser import MemoryBrowserAccess

        return MemoryBrowserAccess(self._core)

    @cached_property
    def settings_access(self) -> SettingsAccess:
        from wave_tui.session.editable_settings import SettingsAccess

        return SettingsAccess(self._core)

    @cached_property
    def permissions(self) -> PermissionAccess:
        from wave_tui.session.grants import PermissionAccess

        return PermissionAccess(self._core)

    @cached_property
    def picker(self) -> SessionPicker:
        from wave_tui.session.picker import SessionPicker

        return SessionPicker(self._core)

    async def list_memories(self) -> list[MemoryEntry]:
        return await self.memory.entries()

    async def show_memory(self, entry_id: str) -> MemoryEntry:
        return await self.memory.show(entry_id)

    async def add_memory(self, scope: MemoryScope, text: str) -> AddResult:
        return await self.memory.add(scope, text)

    async def delete_memory(self, entry: MemoryEntry) -> MemoryEntry:
        return await self.memory.delete(entry)

    async def with_missing_refs(self, entries: list[MemoryEntry]) -> list[MemoryEntry]:
        return await self.memory.with_missing_refs(entries)

    async def list_runs(self) -> list[Run]:
        return await self.memory.runs()

    async def revert_run(self, run_id: str) -> RevertResult:
        return await self.memory.revert(run_id)

    async def pending_writes(self) -> list[PendingWrite]:
        return await self.memory.inbox()

    async def accept_pending(self, item_id: str) -> PendingWrite:
        return await self.memory.accept(item_id)

    async def reject_pending(self, item_id: str) -> PendingWrite:
        return await self.memory.reject(item_id)

    def memory_target(self, scope: MemoryScope) -> Path:
        return self.memory.target(scope)

    def rule_activation(self, rule_id: str) -> tuple[str, str] | None:
        return self.memory.rule_activation(rule_id)

    def knows_rule_activations(self) -> bool:
        return self.memory.knows_rule_activations()

    def settings(self) -> EffectiveSettings:
        return self._core.store.current()

    async def read_settings(self) -> EditableSettings:
        return await self.settings_access.read()

    @staticmethod
    def setting_help(name: str) -> str:
        from wave_tui.session.editable_settings import SettingsAccess

        return SettingsAccess.help(name)

    async def save_settings(self, **changes: Any) -> None:
        await self.settings_access.save(**changes)

    async def read_endpoint(self) -> EndpointSettings:
        return await self.settings_access.read_endpoint()

    async def endpoint_in_use(self) -> EndpointInUse:
        return await self.settings_access.endpoint_in_use()

    async def save_endpoint(self, endpoint: EndpointSettings) -> None:
        await self.settings_access.save_endpoint(endpoint)

    async def test_connection(self, base_url: str, api_key: str, model: str) -> ConnectionCheck:
        return await self.settings_access.test_connection(base_url, api_key, model)

    def settings_problems(self) -> list[str]:
        return self.settings_access.problems()

    def model_in_use(self) -> str | None:
        return self.settings_access.model_in_use()

    def model_choices(self) -> list[ModelChoice]:
        return self.settings_access.model_choices()

    async def model_menu(self) -> ModelMenu:
        return await self.settings_access.model_menu()

    def watch_settings(self) -> AsyncIterator[EffectiveSettings]:
        return self.settings_access.watch()

    def grant_label(self, tool: str, args: dict[str, Any]) -> str:
        return self.permissions.grant_label(tool, args)

    def grant_options(self, tool: str, args: dict[str, Any]) -> tuple[GrantOption, ...]:
        return self.permissions.grant_options(tool, args)

    async def permission_preview(self, tool: str, args: dict[str, Any]) -> PermissionPreview:
        return await self.permissions.preview(tool, args)

    def permission_state(self) -> PermissionState | None:
        return self.permissions.state()

    def revoke_grant(self, grant: str) -> bool:
        return self.permissions.revoke_grant(grant)

    def cycle_permission_mode(self) -> PermissionMode:
        return self.permissions.cycle_mode()

    def trust_requests(self) -> list[TrustRequested]:
        return self.permissions.trust_requests()

    def trust_request(self) -> TrustRequested | None:
        return self.permissions.trust_request()

    async def grant_trust(self, requests: list[TrustRequested]) -> None:
        await self.permissions.grant_trust(requests)

    def complete_path(self, text: str) -> tuple[str, tuple[str, ...]] | None:
        return self.inputs.complete_path(text)

    async def run_command(self, text: str) -> CommandResult:
        return await self.inputs.run_command(text)

    def command_choices(self, prefix: str = "") -> list[CommandChoice]:
        return self.inputs.command_choices(prefix)

    async def input_history(self) -> list[str]:
        return await self.inputs.history()

    async def remember_input(self, text: str) -> None:
        await self.inputs.remember(text)

    async def list_sessions(self) -> list[SessionInfo]:
        return await self.picker.sessions()

    async def session_summaries(self) -> list[SessionSummary]:
        return await self.picker.summaries()

    def resume(self, session_id: str) -> None:
        self.picker.resume(session_id)
