"""A local OTLP/HTTP collector on 127.0.0.1 for the telemetry tests: it decodes the protobuf
requests that arrive (spans, metric points, log records) into plain records.

`mode` "ok" answers 200; "error" answers 503 to every export; "hold" reads the request and
then waits (never answering while the test holds it), as a collector that hangs would.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

Mode = Literal["ok", "error", "hold"]


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return _attrs(value.kvlist_value.values)
    return getattr(value, kind) if kind else None


def _attrs(items: Any) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in items if isinstance(kv, KeyValue)}


@dataclass
class Span:
    name: str
    span_id: str
    parent_id: str
    trace_id: str
    attributes: dict[str, Any]
    resource: dict[str, Any]


@dataclass
class Event:
    name: str
    attributes: dict[str, Any]
    span_id: str
    trace_id: str


@dataclass
class Point:
    name: str
    attributes: dict[str, Any]
    value: float


@dataclass
class Received:
    spans: list[Span] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def span(self, name: str) -> Span:
        found = [s for s in self.spans if s.name == name]
        assert len(found) == 1, (name, [s.name for s in self.spans])
        return found[0]

    def named(self, name: str) -> list[Event]:
        return [e for e in self.events if e.name == name]

    def total(self, name: str, **attributes: Any) -> float:
        """The last cumulative value of each matching series, summed."""
        last: dict[tuple[tuple[str, Any], ...], float] = {}
        for p in self.points:
            if p.name == name and all(p.attributes.get(k) == v for k, v in attributes.items()):
                last[tuple(sorted(p.attributes.items()))] = p.value
        return sum(last.values())


class OtlpReceiver:
    def __init__(self, mode: Mode = "ok") -> None:
        self.mode = mode
        self.received = Received()
        self.release = threading.Event()
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.take(self.path, body, dict(self.headers.items()))
                if receiver.mode == "hold":
                    receiver.release.wait(60)
                    return
                status = 503 if receiver.mode == "error" else 200
                self.send_response(status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def take(self, path: str, body: bytes, headers: dict[str, str]) -> None:
        with self.lock:
            self.received.paths.append(path)
            self.received.headers.append({k.lower(): v for k, v in headers.items()})
            if path.endswith("/v1/traces"):
                self._spans(body)
            elif path.endswith("/v1/logs"):
                self._logs(body)
            elif path.endswith("/v1/metrics"):
                self._metrics(body)

    def _spans(self, body: bytes) -> None:
        request = ExportTraceServiceRequest.FromString(body)
        for rs in request.resource_spans:
            resource = _attrs(rs.resource.attributes)
            for scope in rs.scope_spans:
                for s in scope.spans:
                    self.received.spans.append(
                        Span(
                            s.name,
                            s.span_id.hex(),
                            s.parent_span_id.hex(),
                            s.trace_id.hex(),
                            _attrs(s.attributes),
                            resource,
                        )
                    )

    def _logs(self, body: bytes) -> None:
        request = ExportLogsServiceRequest.FromString(body)
        for rl in request.resource_logs:
            for scope in rl.scope_logs:
                for record in scope.log_records:
                    attributes = _attrs(record.attributes)
                    name = record.event_name or str(attributes.get("event.name", ""))
                    self.received.events.append(
                        Event(name, attributes, record.span_id.hex(), record.trace_id.hex())
                    )

    def _metrics(self, body: bytes) -> None:
        request = ExportMetricsServiceRequest.FromString(body)
        for rm in request.resource_metrics:
            for scope in rm.scope_metrics:
                for metric in scope.metrics:
                    kind = metric.WhichOneof("data")
                    data = getattr(metric, kind) if kind else None
                    for point in getattr(data, "data_points", ()):
                        value = point.as_int if point.HasField("as_int") else point.as_double
                        self.received.points.append(
                            Point(metric.name, _attrs(point.attributes), value)
                        )


class GrpcOtlpReceiver:
    """The same collector over OTLP/gRPC (the three services on one 127.0.0.1 port)."""

    def __init__(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        import grpc
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
        from opentelemetry.proto.collector.metrics.v1 import (
            metrics_service_pb2,
            metrics_service_pb2_grpc,
        )
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

        self.http = OtlpReceiver()  # its decoding and its records; its HTTP server never starts
        self.received = self.http.received
        self.metadata: list[dict[str, str]] = []
        receiver = self

        def keep(path: str, request: Any, context: Any) -> None:
            self.metadata.append({k: v for k, v in context.invocation_metadata()})
            receiver.http.take(path, request.SerializeToString(), {})

        class Traces(trace_service_pb2_grpc.TraceServiceServicer):  # type: ignore[misc]
            def Export(self, request: Any, context: Any) -> Any:
                keep("/v1/traces", request, context)
                return trace_service_pb2.ExportTraceServiceResponse()

        class Metrics(metrics_service_pb2_grpc.MetricsServiceServicer):  # type: ignore[misc]
            def Export(self, request: Any, context: Any) -> Any:
                keep("/v1/metrics", request, context)
                return metrics_service_pb2.ExportMetricsServiceResponse()

        class Logs(logs_service_pb2_grpc.LogsServiceServicer):  # type: ignore[misc]
            def Export(self, request: Any, context: Any) -> Any:
                keep("/v1/logs", request, context)
                return logs_service_pb2.ExportLogsServiceResponse()

        self.server = grpc.server(ThreadPoolExecutor(max_workers=4))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Traces(), self.server)
        metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(Metrics(), self.server)
        logs_service_pb2_grpc.add_LogsServiceServicer_to_server(Logs(), self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.http.server.server_close()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> GrpcOtlpReceiver:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop(grace=None)
