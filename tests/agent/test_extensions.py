"""`Extensions.add` files each extension in the slots of the seams named, and only if it implements
them; every extension the factory wires is filed for all the seams it implements."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import wave_tui.agent.extensions as ext
from tests.model_server import ModelServer
from wave_tui.agent.events import AgentEvent
from wave_tui.agent.service import AgentOptions
from wave_tui.session.factory import create_service

# Every slot with its protocol, as the loop's parts read them.
SLOTS: dict[str, type] = {
    "context_sources": ext.ContextSource,
    "tool_providers": ext.ToolProvider,
    "guards": ext.ToolGuard,
    "deciders": ext.ToolDecider,
    "locks": ext.ToolLock,
    "preparers": ext.ToolPreparer,
    "tool_observers": ext.ToolObserver,
    "turn_observers": ext.TurnObserver,
    "session_observers": ext.SessionObserver,
    "status_sources": ext.StatusSource,
    "compaction_hooks": ext.CompactionHooks,
    "permission_hooks": ext.PermissionRequestHooks,
    "skill_sources": ext.InvokedSkills,
    "running_work_sources": ext.RunningWork,
    "request_watchers": ext.RequestWatcher,
    "tool_watchers": ext.ToolWatcher,
    "event_observers": ext.EventObserver,
    "prompt_attachments": ext.PromptAttachments,
    "workdir_observers": ext.WorkdirObserver,
}


class _Events:
    def __init__(self) -> None:
        self.seen: list[AgentEvent] = []

    def on_event(self, event: AgentEvent) -> None:
        self.seen.append(event)


class _HalfTurnObserver:
    """Has one of TurnObserver's two methods: that is not a TurnObserver."""

    async def on_turn_start(self, prompt: str) -> ext.TurnStart:
        return ext.TurnStart()


@pytest.mark.req("CB1")
def test_an_extension_lands_in_the_slots_of_the_seams_named() -> None:
    registry = ext.Extensions()
    assert set(vars(registry)) - {"all"} == set(SLOTS)  # the table above is every slot
    events = _Events()
    registry.add(events, ext.EventObserver)
    assert registry.event_observers == [events] and registry.all == [events]
    assert [name for name in SLOTS if getattr(registry, name)] == ["event_observers"]


@pytest.mark.req("CB1")
def test_a_partial_protocol_is_refused_and_nothing_is_filed() -> None:
    registry = ext.Extensions()
    with pytest.raises(
        TypeError, match="_HalfTurnObserver does not implement TurnObserver: no on_turn_end"
    ):
        registry.add(_HalfTurnObserver(), ext.TurnObserver)  # type: ignore[arg-type]
    assert registry.turn_observers == [] and registry.all == []


def test_a_method_set_to_none_does_not_count() -> None:
    """As a runtime protocol check: a member that is None is not implemented."""
    events = _Events()
    events.on_event = None  # type: ignore[assignment,method-assign]
    with pytest.raises(TypeError):
        ext.Extensions().add(events, ext.EventObserver)


def _configure_everything(project: Path) -> dict[str, str]:
    """Project settings naming an MCP server, a language server and a hook; telemetry on. No
    server is started: the session is only built."""
    idle = {"command": sys.executable, "args": ["-c", "pass"]}
    hook = {"hooks": [{"type": "command", "command": "true"}]}
    settings = {
        "mcpServers": {"idle": idle},
        "lspServers": {"idle": {**idle, "extensionToLanguage": {".py": "python"}}},
        "hooks": {"PreToolUse": [hook], "Stop": [hook]},
    }
    (project / ".wave").mkdir(exist_ok=True)
    (project / ".wave" / "settings.json").write_text(json.dumps(settings))
    return {"OTEL_ENABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}


@pytest.mark.req("CB1")
@pytest.mark.parametrize("configured", [False, True], ids=["default", "everything"])
async def test_every_wired_extension_is_filed_as_isinstance_would(
    model_server: ModelServer, project: Path, configured: bool
) -> None:
    """The real factory's extensions, each named for exactly the seams `isinstance` finds: an
    explicit registration drops none of them. Also with MCP, LSP, hooks, telemetry on and an
    interactive session (the worktree-staging asker)."""
    environ = {"WAVE_BASE_URL": model_server.base_url, "WAVE_API_KEY": "k", "WAVE_MODEL": "m"}
    if configured:
        environ |= _configure_everything(project)
    options = AgentOptions(workdir=project, environ=environ, headless=not configured)
    service = create_service(options)
    try:
        registry = service.extensions
        kinds = {type(e).__name__ for e in registry.all}
        assert len(registry.all) > 10
        if configured:
            assert {"McpWiring", "LspWiring", "UserHooks", "TelemetryHook"} <= kinds
        for extension in registry.all:
            filed = {name for name in SLOTS if any(e is extension for e in getattr(registry, name))}
            expected = {name for name, proto in SLOTS.items() if isinstance(extension, proto)}
            assert filed == expected, type(extension).__name__
    finally:
        await service.destroy()
