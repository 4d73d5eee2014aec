"""Telemetry for a command that runs no session (`wave memory add`, `wave memory delete`): its
memory writes as `memory_write` events, exported before the command ends. Nothing of
OpenTelemetry is imported unless telemetry is on."""

from __future__ import annotations

from collections.abc import Callable

from wave_tui.agent import events as ev
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore
from wave_tui.features.telemetry.switch import is_enabled, merged_settings


# req: FH10
def memory_write_emitter(paths: WavePaths) -> Callable[[ev.AgentEvent], None]:
    """An event sink recording each MemoryChanged (with its source) when telemetry is on; the
    settings are read at the first write, so a command that writes nothing pays nothing."""

    def emit(event: ev.AgentEvent) -> None:
        if not isinstance(event, ev.MemoryChanged):
            return
        store = SettingsStore(paths)
        settings = merged_settings(layer.data for layer in store.layers())
        if is_enabled(store.environ, settings):
            _record(paths, store, settings, event)

    return emit


def _record(
    paths: WavePaths, store: SettingsStore, settings: dict[str, object], event: ev.MemoryChanged
) -> None:
    from wave_tui.features.telemetry.config import telemetry_config
    from wave_tui.features.telemetry.hooks import stderr_warning
    from wave_tui.features.telemetry.recorder import Recorder
    from wave_tui.features.telemetry.runtime import Telemetry

    try:
        telemetry = Telemetry(
            telemetry_config(store.environ, settings, paths.telemetry_file), stderr_warning
        )
    except Exception as exc:  # the SDK refusing its configuration: the command goes on
        stderr_warning(f"telemetry is off: {type(exc).__name__}: {exc}")
        return
    recorder = Recorder(telemetry, paths, lambda: "")
    for path in event.paths:
        recorder.memory_write(path, event.source)
    telemetry.shutdown()
