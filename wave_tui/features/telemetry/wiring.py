"""Plugs telemetry into an agent when it is on; when it is off, nothing of it is imported but
this module and `config` (no OpenTelemetry module at all).

Starting the SDK never stops the agent: a failure there is one warning and no telemetry.
"""

from __future__ import annotations

import contextlib

from wave_tui.agent.extensions import (
    CompactionHooks,
    EventObserver,
    RequestWatcher,
    SessionObserver,
    ToolWatcher,
    TurnObserver,
)
from wave_tui.agent.service import AgentService
from wave_tui.features.telemetry.switch import is_enabled, merged_settings


# req: OT1
def install_telemetry_if_on(service: AgentService) -> None:
    """Telemetry for this agent, only when the OTEL_* variables or `monitoring.telemetry` turn
    it on (the variables win)."""
    settings = merged_settings(layer.data for layer in service.store.layers())
    if not is_enabled(service.store.environ, settings):
        return
    from wave_tui.features.telemetry.config import telemetry_config  # only with telemetry on
    from wave_tui.features.telemetry.hooks import (  # only with telemetry on
        TelemetryHook,
        TelemetryHost,
        Warner,
        stderr_warning,
    )

    config = telemetry_config(service.store.environ, settings, service.paths.telemetry_file)
    warner = Warner(service.notify)
    try:
        from wave_tui.features.telemetry.recorder import Recorder
        from wave_tui.features.telemetry.runtime import Telemetry
        from wave_tui.features.telemetry.watchers import RequestTelemetry, ToolTelemetry

        telemetry = Telemetry(config, warner)
    except Exception as exc:  # the SDK missing or refusing its configuration: the agent goes on
        stderr_warning(f"telemetry is off: {type(exc).__name__}: {exc}")
        return
    for problem in config.problems:
        telemetry.once(f"telemetry: {problem}")
    recorder = Recorder(telemetry, service.paths, lambda: service.session_id)

    def prompt_tokens() -> int:
        with contextlib.suppress(Exception):  # no endpoint yet: nothing to measure
            from wave_tui.llm.usage import estimate_prompt_tokens

            return estimate_prompt_tokens(service.build_request())
        return 0

    host = TelemetryHost(service.paths.project_root, lambda: service.model, prompt_tokens)
    hook = TelemetryHook(recorder, host, warner)
    service.add_extension(hook, TurnObserver, SessionObserver, CompactionHooks, EventObserver)
    service.add_extension(RequestTelemetry(recorder), RequestWatcher)
    service.add_extension(ToolTelemetry(recorder), ToolWatcher)
