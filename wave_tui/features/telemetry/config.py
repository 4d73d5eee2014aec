"""How telemetry exports, once it is on: the OTEL_* variables over `monitoring.telemetry`, key
by key (004 §16) — one exporter per signal, the OTLP target and headers, the switches, limits.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, get_args
from urllib.parse import unquote

from wave_tui.config.records import record
from wave_tui.config.schema import OtlpProtocol, TelemetryExporter
from wave_tui.features.telemetry.switch import (
    ENV_EXPORTER,
    SETTINGS_EXPORTER_KEY,
    SIGNALS,
    Signal,
    flag,
)

EXPORTERS: tuple[TelemetryExporter, ...] = get_args(TelemetryExporter)

DEFAULT_EXPORTER: TelemetryExporter = "otlp"
DEFAULT_HTTP_ENDPOINT = "http://localhost:4318"
DEFAULT_GRPC_ENDPOINT = "http://localhost:4317"
DEFAULT_SHUTDOWN_TIMEOUT_MS = 2000
DEFAULT_SPAN_TTL_MS = 30 * 60 * 1000  # active spans older than this are dropped (long sessions)
DEFAULT_EXPORT_TIMEOUT_MS = 10_000
DEFAULT_METRIC_INTERVAL_MS = 60_000
DEFAULT_JSONL_MAX_BYTES = 10 * 1024 * 1024  # the JSONL file is rotated past this size

ENV_ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"
ENV_PROTOCOL = "OTEL_EXPORTER_OTLP_PROTOCOL"
ENV_HEADERS = "OTEL_EXPORTER_OTLP_HEADERS"
ENV_TIMEOUT = "OTEL_EXPORTER_OTLP_TIMEOUT"
ENV_LOG_PROMPTS = "OTEL_LOG_USER_PROMPTS"
ENV_LOG_TOOL_CONTENT = "OTEL_LOG_TOOL_CONTENT"
ENV_SHUTDOWN_TIMEOUT = "OTEL_SHUTDOWN_TIMEOUT_MS"
ENV_SPAN_TTL = "OTEL_SPAN_TTL_MS"
ENV_METRIC_INTERVAL = "OTEL_METRIC_EXPORT_INTERVAL"


@record
class TelemetryConfig:
    """Telemetry as it runs: one exporter per signal, the OTLP target, the switches, limits."""

    traces: TelemetryExporter
    metrics: TelemetryExporter
    logs: TelemetryExporter
    endpoint: str
    protocol: OtlpProtocol
    jsonl_path: Path
    headers: dict[str, str] = field(default_factory=dict)
    log_user_prompts: bool = False
    log_tool_content: bool = False
    shutdown_timeout_ms: int = DEFAULT_SHUTDOWN_TIMEOUT_MS
    span_ttl_ms: int = DEFAULT_SPAN_TTL_MS
    export_timeout_ms: int = DEFAULT_EXPORT_TIMEOUT_MS
    metric_interval_ms: int = DEFAULT_METRIC_INTERVAL_MS
    jsonl_max_bytes: int = DEFAULT_JSONL_MAX_BYTES
    problems: tuple[str, ...] = ()  # values that were not understood (said once at start)

    def exporter(self, signal: Signal) -> TelemetryExporter:
        return {"traces": self.traces, "metrics": self.metrics, "logs": self.logs}[signal]


def parse_headers(text: str) -> dict[str, str] | None:
    """`k=v,k2=v2` (the OpenTelemetry form, values percent-decoded) or a JSON object of
    strings (004); None when it is neither."""
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            return None
        if not isinstance(value, dict):
            return None
        return {str(k): str(v) for k, v in value.items()}
    headers: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            return None
        headers[unquote(key.strip())] = unquote(value.strip())
    return headers


def _int(environ: Mapping[str, str], name: str, default: int, problems: list[str]) -> int:
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        problems.append(f"{name}={raw!r} is not a whole number of milliseconds")
        return default
    return value


def _exporter(
    signal: Signal,
    environ: Mapping[str, str],
    settings: Mapping[str, Any],
    problems: list[str],
    unset: TelemetryExporter = DEFAULT_EXPORTER,
) -> TelemetryExporter:
    env_name = ENV_EXPORTER[signal]
    raw = _raw_exporter(signal, environ, settings)
    if raw is None:
        return unset
    for exporter in EXPORTERS:
        if raw == exporter:
            return exporter
    problems.append(f"{env_name}={raw!r} is none of {', '.join(EXPORTERS)}: {signal} not exported")
    return "none"


def _raw_exporter(
    signal: Signal, environ: Mapping[str, str], settings: Mapping[str, Any]
) -> str | None:
    raw = environ.get(ENV_EXPORTER[signal], "").strip().lower() or settings.get(
        SETTINGS_EXPORTER_KEY[signal]
    )
    return str(raw) if raw else None


# req: FH10
def _unset_exporter(environ: Mapping[str, str], settings: Mapping[str, Any]) -> TelemetryExporter:
    """Where a signal nobody named goes: where the first named one goes (`OTEL_TRACES_EXPORTER
    =jsonl` alone sends metrics and events to the same file, not to an OTLP endpoint nobody
    runs), or OTLP when none is named."""
    for signal in SIGNALS:
        raw = _raw_exporter(signal, environ, settings)
        if raw is not None:
            return next((e for e in EXPORTERS if e == raw), "none")
    return DEFAULT_EXPORTER


# req: OT3
def telemetry_config(
    environ: Mapping[str, str], settings: Mapping[str, Any], jsonl_path: Path
) -> TelemetryConfig:
    """The configuration in force (telemetry is on: `switch.is_enabled` said so)."""
    problems: list[str] = []
    raw_protocol = environ.get(ENV_PROTOCOL, "").strip().lower() or settings.get("protocol")
    protocol: OtlpProtocol = "grpc" if raw_protocol == "grpc" else "http/protobuf"
    default_endpoint = DEFAULT_GRPC_ENDPOINT if protocol == "grpc" else DEFAULT_HTTP_ENDPOINT
    endpoint = environ.get(ENV_ENDPOINT, "").strip() or settings.get("endpoint")
    headers: dict[str, str] = {}
    setting_headers = settings.get("headers")
    if isinstance(setting_headers, dict):
        headers = {str(k): str(v) for k, v in setting_headers.items()}
    if ENV_HEADERS in environ:
        parsed = parse_headers(environ[ENV_HEADERS])
        if parsed is None:
            problems.append(f"{ENV_HEADERS} is neither k=v,k2=v2 nor a JSON object: not sent")
        else:
            headers = parsed
    unset = _unset_exporter(environ, settings)
    prompts = flag(environ.get(ENV_LOG_PROMPTS))
    content = flag(environ.get(ENV_LOG_TOOL_CONTENT))
    return TelemetryConfig(
        traces=_exporter("traces", environ, settings, problems, unset),
        metrics=_exporter("metrics", environ, settings, problems, unset),
        logs=_exporter("logs", environ, settings, problems, unset),
        endpoint=(endpoint if isinstance(endpoint, str) and endpoint else default_endpoint),
        protocol=protocol,
        jsonl_path=jsonl_path,
        headers=headers,
        log_user_prompts=prompts if prompts is not None else settings.get("logUserPrompts") is True,
        log_tool_content=content if content is not None else settings.get("logToolContent") is True,
        shutdown_timeout_ms=_int(
            environ, ENV_SHUTDOWN_TIMEOUT, DEFAULT_SHUTDOWN_TIMEOUT_MS, problems
        ),
        span_ttl_ms=_int(environ, ENV_SPAN_TTL, DEFAULT_SPAN_TTL_MS, problems),
        export_timeout_ms=_int(environ, ENV_TIMEOUT, DEFAULT_EXPORT_TIMEOUT_MS, problems),
        metric_interval_ms=_int(environ, ENV_METRIC_INTERVAL, DEFAULT_METRIC_INTERVAL_MS, problems),
        problems=tuple(problems),
    )
