"""Whether telemetry is on: `OTEL_ENABLED`, an exporter variable, or `monitoring.telemetry`
in the settings files, the variables winning (004 §16).

The one telemetry module every start loads: a few constants and two small functions, so telemetry
that is off costs nothing else (no OpenTelemetry module, not even its configuration's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

Signal = Literal["traces", "metrics", "logs"]
SIGNALS: tuple[Signal, ...] = ("traces", "metrics", "logs")
ENV_ENABLED = "OTEL_ENABLED"
ENV_EXPORTER = {s: f"OTEL_{s.upper()}_EXPORTER" for s in SIGNALS}
SETTINGS_EXPORTER_KEY = {s: f"{s}Exporter" for s in SIGNALS}
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def flag(value: str | None) -> bool | None:
    """A yes/no variable: None when unset, empty or neither."""
    if value is None or not value.strip():
        return None
    word = value.strip().lower()
    return True if word in _TRUE else False if word in _FALSE else None


def merged_settings(layers: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """`monitoring.telemetry` across the settings files, a later file's key winning."""
    merged: dict[str, Any] = {}
    for data in layers:
        monitoring = data.get("monitoring")
        telemetry = monitoring.get("telemetry") if isinstance(monitoring, dict) else None
        if isinstance(telemetry, dict):
            merged.update(telemetry)
    return merged


# req: OT2
def is_enabled(environ: Mapping[str, str], settings: Mapping[str, Any]) -> bool:
    """OTEL_ENABLED, else an exporter variable, else `enabled`, else an exporter key."""
    said = flag(environ.get(ENV_ENABLED))
    if said is not None:
        return said
    if any(environ.get(ENV_EXPORTER[s], "").strip() for s in SIGNALS):
        return True
    enabled = settings.get("enabled")
    if isinstance(enabled, bool):
        return enabled
    return any(isinstance(settings.get(SETTINGS_EXPORTER_KEY[s]), str) for s in SIGNALS)
