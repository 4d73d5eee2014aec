"""A collector that is down, refusing or hanging changes nothing of the turn and is said once;
spans past `OTEL_SPAN_TTL_MS` are dropped while the rest still goes out."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.features.telemetry.otlp_receiver import Mode, OtlpReceiver
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave

pytestmark = pytest.mark.timeout(120)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def telemetry_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "telemetry" in line]


@pytest.fixture
def failing(request: pytest.FixtureRequest) -> Iterator[str]:
    mode: Mode | None = request.param
    if mode is None:
        yield f"http://127.0.0.1:{free_port()}"  # nothing listens there
        return
    receiver = OtlpReceiver(mode).start()
    yield receiver.endpoint
    receiver.stop()


# Down (connection refused), refusing (503), hanging (never answers).
@pytest.mark.req("OT8")
@pytest.mark.parametrize("failing", [None, "error", "hold"], indirect=True)
def test_a_failing_collector_warns_once_and_the_turn_is_unaffected(
    model_server: ModelServer, project: Path, failing: str
) -> None:
    (project / "f.txt").write_text("x\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": str(project / "f.txt")}), text("fine"), text("none")
    )
    env = {
        "OTEL_ENABLED": "1",
        "OTEL_EXPORTER_OTLP_ENDPOINT": failing,
        "OTEL_EXPORTER_OTLP_TIMEOUT": "500",
        "OTEL_SHUTDOWN_TIMEOUT_MS": "1000",
    }
    proc = run_wave("-p", "hi", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "fine\n"
    lines = telemetry_lines(proc.stderr)
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("wave: warning: telemetry")
    assert model_server.pending == 0  # the fork ran as without telemetry


@pytest.mark.req("OT8")
def test_spans_older_than_the_ttl_are_dropped_and_the_rest_still_goes_out(
    model_server: ModelServer, project: Path
) -> None:
    receiver = OtlpReceiver().start()
    try:
        model_server.enqueue(text("ok"), text("none"))
        env = {
            "OTEL_ENABLED": "1",
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
            "OTEL_SPAN_TTL_MS": "0",
        }
        proc = run_wave("-p", "hi", cwd=project, server=model_server, env=env)
        assert proc.returncode == 0, proc.stderr
        got = receiver.received
        assert got.spans == []
        assert [e.name for e in got.named("session_end")] == ["session_end"]
        assert got.total("wave.token.usage", type="input") > 0
    finally:
        receiver.stop()
