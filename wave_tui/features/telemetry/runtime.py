"""The OpenTelemetry SDK for one session: a tracer, the four counters and the event logger,
each signal exported where its configuration says, every exporter behind one guard.

A failing exporter (a collector down, refusing, or too slow) is said once, as one warning, and
changes nothing else: the SDK's own log lines are kept out of the terminal. `shutdown` flushes
what is left; it blocks, so the session calls it from a thread of its own and waits at most
`OTEL_SHUTDOWN_TIMEOUT_MS` (the SDK's exit hooks are off: exit never waits on a collector).
"""

from __future__ import annotations

import logging
import platform
import sys
import threading
import time
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from opentelemetry import trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import (
    BatchLogRecordProcessor,
    ConsoleLogRecordExporter,
    LogRecordExporter,
    LogRecordExportResult,
)
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    ConsoleMetricExporter,
    MetricExporter,
    MetricExportResult,
    MetricReader,
    MetricsData,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.util.types import Attributes

from wave_tui.features.telemetry.config import TelemetryConfig
from wave_tui.features.telemetry.jsonl import (
    JsonlFile,
    JsonlLogExporter,
    JsonlMetricExporter,
    JsonlSpanExporter,
)
from wave_tui.features.telemetry.switch import Signal

SCOPE = "wave"
FAILED = "telemetry: could not export {signal} to {target}: {reason}; the agent goes on without it"
TOO_SLOW = "telemetry: the export did not finish within {ms} ms; what was left is dropped"
_OTLP_PATHS: dict[Signal, str] = {"traces": "v1/traces", "metrics": "v1/metrics", "logs": "v1/logs"}


def wave_version() -> str:
    try:
        return version("wave-tui")
    except PackageNotFoundError:
        return "0"


# req: OT8
class OnceWarning:
    """Says the first failure, and nothing after it (thread-safe: exporters run in threads)."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self._warn = warn
        self._lock = threading.Lock()
        self.said = False

    def __call__(self, text: str) -> None:
        # Said under the lock: a second failure racing the exit waits until the first is out.
        with self._lock:
            if self.said:
                return
            self.said = True
            self._warn(text)


class _SdkLog(logging.Handler):
    """Keeps the SDK's last complaint as the reason of the one warning, off the terminal."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.last = ""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.last = record.getMessage().splitlines()[0][:300]
        except Exception:  # a log line that does not format is no reason to fail
            self.last = record.msg if isinstance(record.msg, str) else ""


_SDK_LOG = _SdkLog()


def _quiet_sdk() -> _SdkLog:
    """The SDK's logger kept off the terminal, once per process (agents may come and go)."""
    sdk_logger = logging.getLogger("opentelemetry")
    if _SDK_LOG not in sdk_logger.handlers:
        sdk_logger.addHandler(_SDK_LOG)
    sdk_logger.propagate = False  # the SDK's retries and errors never reach the terminal
    return _SDK_LOG


class _Failures:
    def __init__(self, config: TelemetryConfig, once: OnceWarning, sdk_log: _SdkLog) -> None:
        self._config = config
        self._once = once
        self._sdk_log = sdk_log

    def failed(self, signal: Signal, reason: str) -> None:
        kind = self._config.exporter(signal)
        target = self._config.endpoint if kind == "otlp" else kind
        said = reason or self._sdk_log.last or "the exporter reported a failure"
        self._once(FAILED.format(signal=signal, target=target, reason=said))


class GuardedSpanExporter(SpanExporter):
    def __init__(self, inner: SpanExporter, failures: _Failures) -> None:
        self._inner = inner
        self._failures = failures

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self._inner.export(spans)
        except Exception as exc:
            result, reason = SpanExportResult.FAILURE, f"{type(exc).__name__}: {exc}"
        else:
            reason = ""
        if result is not SpanExportResult.SUCCESS:
            self._failures.failed("traces", reason)
        return result

    def shutdown(self) -> None:
        try:
            self._inner.shutdown()
        except Exception as exc:
            self._failures.failed("traces", f"{type(exc).__name__}: {exc}")

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


class GuardedMetricExporter(MetricExporter):
    def __init__(self, inner: MetricExporter, failures: _Failures) -> None:
        super().__init__(
            preferred_temporality=inner._preferred_temporality,
            preferred_aggregation=inner._preferred_aggregation,
        )
        self._inner = inner
        self._failures = failures

    def export(
        self, metrics_data: MetricsData, timeout_millis: float = 10_000, **kwargs: Any
    ) -> MetricExportResult:
        try:
            result = self._inner.export(metrics_data, timeout_millis=timeout_millis)
        except Exception as exc:
            result, reason = MetricExportResult.FAILURE, f"{type(exc).__name__}: {exc}"
        else:
            reason = ""
        if result is not MetricExportResult.SUCCESS:
            self._failures.failed("metrics", reason)
        return result

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        return True

    def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
        try:
            self._inner.shutdown(timeout_millis=timeout_millis)
        except Exception as exc:
            self._failures.failed("metrics", f"{type(exc).__name__}: {exc}")


class GuardedLogExporter(LogRecordExporter):
    def __init__(self, inner: LogRecordExporter, failures: _Failures) -> None:
        self._inner = inner
        self._failures = failures

    def export(self, batch: Sequence[ReadableLogRecord]) -> LogRecordExportResult:
        try:
            result = self._inner.export(batch)
        except Exception as exc:
            result, reason = LogRecordExportResult.FAILURE, f"{type(exc).__name__}: {exc}"
        else:
            reason = ""
        if result is not LogRecordExportResult.SUCCESS:
            self._failures.failed("logs", reason)
        return result

    def shutdown(self) -> None:
        try:
            self._inner.shutdown()  # type: ignore[no-untyped-call]
        except Exception as exc:
            self._failures.failed("logs", f"{type(exc).__name__}: {exc}")

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


def _otlp_url(config: TelemetryConfig, signal: Signal) -> str:
    return f"{config.endpoint.rstrip('/')}/{_OTLP_PATHS[signal]}"


def _grpc_headers(config: TelemetryConfig) -> dict[str, str]:
    return {k.lower(): v for k, v in config.headers.items()}  # gRPC metadata keys are lowercase


def _span_exporter(config: TelemetryConfig, file: JsonlFile) -> SpanExporter | None:
    timeout = config.export_timeout_ms / 1000
    match config.traces:
        case "otlp" if config.protocol == "grpc":
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
                OTLPSpanExporter as GrpcSpans,
            )

            insecure = config.endpoint.startswith("http://")
            headers = _grpc_headers(config)
            return GrpcSpans(config.endpoint, insecure, headers=headers, timeout=timeout)
        case "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            url = _otlp_url(config, "traces")
            return OTLPSpanExporter(url, headers=config.headers, timeout=timeout)
        case "jsonl":
            return JsonlSpanExporter(file)
        case "console":
            return ConsoleSpanExporter(out=sys.stderr)
    return None


def _metric_exporter(config: TelemetryConfig, file: JsonlFile) -> MetricExporter | None:
    timeout = config.export_timeout_ms / 1000
    match config.metrics:
        case "otlp" if config.protocol == "grpc":
            from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import (
                OTLPMetricExporter as GrpcMetrics,
            )

            insecure = config.endpoint.startswith("http://")
            headers = _grpc_headers(config)
            return GrpcMetrics(config.endpoint, insecure, headers=headers, timeout=timeout)
        case "otlp":
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import (
                OTLPMetricExporter,
            )

            url = _otlp_url(config, "metrics")
            return OTLPMetricExporter(url, headers=config.headers, timeout=timeout)
        case "jsonl":
            return JsonlMetricExporter(file)
        case "console":
            return ConsoleMetricExporter(out=sys.stderr)
    return None


def _log_exporter(config: TelemetryConfig, file: JsonlFile) -> LogRecordExporter | None:
    timeout = config.export_timeout_ms / 1000
    match config.logs:
        case "otlp" if config.protocol == "grpc":
            from opentelemetry.exporter.otlp.proto.grpc._log_exporter import (
                OTLPLogExporter as GrpcLogs,
            )

            insecure = config.endpoint.startswith("http://")
            headers = _grpc_headers(config)
            return GrpcLogs(config.endpoint, insecure, headers=headers, timeout=timeout)
        case "otlp":
            from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter

            url = _otlp_url(config, "logs")
            return OTLPLogExporter(url, headers=config.headers, timeout=timeout)
        case "jsonl":
            return JsonlLogExporter(file)
        case "console":
            return ConsoleLogRecordExporter(out=sys.stderr)
    return None


# req: OT6
class Counters:
    """The metrics of the contract (names and attributes as it says)."""

    def __init__(self, provider: MeterProvider) -> None:
        meter = provider.get_meter(SCOPE, wave_version())
        self.tokens = meter.create_counter(
            "wave.token.usage", unit="{token}", description="Tokens by type and model."
        )
        self.tool_decisions = meter.create_counter(
            "wave.tool.decision", description="Tool permission decisions."
        )
        self.lines = meter.create_counter(
            "wave.lines.changed", unit="{line}", description="Lines added and removed by edits."
        )
        self.memory_writes = meter.create_counter(
            "wave.memory.write", description="Memory files written, by scope and source."
        )


class Telemetry:
    """The three providers of one session. Built only when telemetry is on."""

    def __init__(self, config: TelemetryConfig, warn: Callable[[str], None]) -> None:
        self.config = config
        self.once = OnceWarning(warn)
        failures = _Failures(config, self.once, _quiet_sdk())
        resource = Resource.create(
            {
                "service.name": "wave",
                "service.version": wave_version(),
                "os.type": platform.system().lower(),
                "host.arch": platform.machine(),
            }
        )
        file = JsonlFile(config.jsonl_path, config.jsonl_max_bytes)
        self.tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        spans = _span_exporter(config, file)
        if spans is not None:
            processor = BatchSpanProcessor(GuardedSpanExporter(spans, failures))
            self.tracer_provider.add_span_processor(processor)
        readers: list[MetricReader] = []
        metrics = _metric_exporter(config, file)
        if metrics is not None:
            readers.append(
                PeriodicExportingMetricReader(
                    GuardedMetricExporter(metrics, failures),
                    export_interval_millis=config.metric_interval_ms,
                    export_timeout_millis=config.export_timeout_ms,
                )
            )
        self.meter_provider = MeterProvider(
            metric_readers=readers, resource=resource, shutdown_on_exit=False
        )
        self.logger_provider = LoggerProvider(resource=resource, shutdown_on_exit=False)
        logs = _log_exporter(config, file)
        if logs is not None:
            processor_logs = BatchLogRecordProcessor(GuardedLogExporter(logs, failures))
            self.logger_provider.add_log_record_processor(processor_logs)
        self.tracer = self.tracer_provider.get_tracer(SCOPE, wave_version())
        self.counters = Counters(self.meter_provider)
        self._logger = self.logger_provider.get_logger(SCOPE, wave_version())

    def event(self, name: str, attributes: Attributes, span: trace.Span | None = None) -> None:
        """One event of the contract, a log record named `name` (in the span's trace)."""
        context = trace.set_span_in_context(span) if span is not None else None
        self._logger.emit(
            timestamp=time.time_ns(),
            context=context,
            severity_number=SeverityNumber.INFO,
            body=name,
            attributes={"event.name": name, **dict(attributes or {})},
            event_name=name,
        )

    def shutdown(self) -> None:
        """Export what is left and stop (blocking: from a thread of its own)."""
        for provider in (self.tracer_provider, self.logger_provider):
            provider.shutdown()
        self.meter_provider.shutdown(timeout_millis=self.config.shutdown_timeout_ms)
