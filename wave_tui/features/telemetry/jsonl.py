"""The JSONL exporters: spans, metric points and events as one JSON record a line in
`~/.wave/telemetry.jsonl`, the file rotated (one `.1` kept) once it passes a size cap.

The SDK calls these from its worker threads (never the event loop), so the file work and the
lock between agent processes are plain blocking calls here.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from opentelemetry.sdk._logs import ReadableLogRecord
from opentelemetry.sdk._logs.export import LogRecordExporter, LogRecordExportResult
from opentelemetry.sdk.metrics.export import (
    MetricExporter,
    MetricExportResult,
    MetricsData,
)
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

LOCK_TIMEOUT_S = 2.0  # another agent writing this long: write without it rather than block


def _plain(value: Any) -> Any:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return str(value)


def _attributes(attributes: Any) -> dict[str, Any]:
    return {str(k): _plain(v) for k, v in dict(attributes or {}).items()}


class JsonlFile:
    """Appends whole lines; past `max_bytes` the file becomes `telemetry.jsonl.1` first."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._file_lock = FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT_S)

    def write(self, records: list[dict[str, Any]]) -> None:
        if not records:
            return
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            try:
                with self._file_lock:
                    self._append(data)
            except Timeout:
                self._append(data)

    def _append(self, data: bytes) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            size = 0
        if size and size + len(data) > self.max_bytes:
            os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)


def _resource(resource: Any) -> dict[str, Any]:
    return _attributes(getattr(resource, "attributes", {}))


def span_record(span: ReadableSpan) -> dict[str, Any]:
    context = span.context
    parent = span.parent
    return {
        "signal": "span",
        "name": span.name,
        "trace_id": f"{context.trace_id:032x}" if context else None,
        "span_id": f"{context.span_id:016x}" if context else None,
        "parent_span_id": f"{parent.span_id:016x}" if parent else None,
        "start_time_unix_nano": span.start_time,
        "end_time_unix_nano": span.end_time,
        "status": span.status.status_code.name,
        "attributes": _attributes(span.attributes),
        "resource": _resource(span.resource),
    }


class JsonlSpanExporter(SpanExporter):
    def __init__(self, file: JsonlFile) -> None:
        self.file = file

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.file.write([span_record(s) for s in spans])
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


class JsonlMetricExporter(MetricExporter):
    def __init__(self, file: JsonlFile) -> None:
        super().__init__()
        self.file = file

    def export(
        self, metrics_data: MetricsData, timeout_millis: float = 10_000, **kwargs: Any
    ) -> MetricExportResult:
        records: list[dict[str, Any]] = []
        for resource_metrics in metrics_data.resource_metrics:
            for scope in resource_metrics.scope_metrics:
                for metric in scope.metrics:
                    for point in getattr(metric.data, "data_points", ()):
                        records.append(
                            {
                                "signal": "metric",
                                "name": metric.name,
                                "unit": metric.unit,
                                "attributes": _attributes(point.attributes),
                                "value": _plain(getattr(point, "value", None)),
                                "time_unix_nano": point.time_unix_nano,
                            }
                        )
        self.file.write(records)
        return MetricExportResult.SUCCESS

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        return True

    def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
        return None


class JsonlLogExporter(LogRecordExporter):
    def __init__(self, file: JsonlFile) -> None:
        self.file = file

    def export(self, batch: Sequence[ReadableLogRecord]) -> LogRecordExportResult:
        records: list[dict[str, Any]] = []
        for readable in batch:
            record = readable.log_record
            records.append(
                {
                    "signal": "event",
                    "name": record.event_name,
                    "time_unix_nano": record.timestamp,
                    "trace_id": f"{record.trace_id:032x}" if record.trace_id else None,
                    "span_id": f"{record.span_id:016x}" if record.span_id else None,
                    "attributes": _attributes(record.attributes),
                    "resource": _resource(readable.resource),
                }
            )
        self.file.write(records)
        return LogRecordExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True
