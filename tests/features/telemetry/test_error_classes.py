"""Exported errors are classified, never copied: a failed tool's output (which names the path
it read) and a provider's error body (which echoes the prompt) stay home unless the content
switches are on — in spans, in the `error` event and in its stack, over JSONL and OTLP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.features.telemetry.otlp_receiver import OtlpReceiver
from tests.model_server import ModelServer, error, text, tool_call
from tests.wave_cli import run_wave

pytestmark = pytest.mark.timeout(120)

JSONL = {f"OTEL_{s}_EXPORTER": "jsonl" for s in ("TRACES", "METRICS", "LOGS")}
PROMPT = "tell me about project-zebra-7731"
MISSING = "private-dossier-4412.txt"


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    server = OtlpReceiver().start()
    yield server
    server.stop()


def exported(home: Path) -> tuple[str, list[dict[str, object]]]:
    raw = (home / ".wave" / "telemetry.jsonl").read_text()
    return raw, [json.loads(line) for line in raw.splitlines()]


def named(got: list[dict[str, object]], name: str) -> list[dict[str, object]]:
    return [r for r in got if r.get("name") == name]


def attributes(record: dict[str, object]) -> dict[str, object]:
    found = record.get("attributes")
    assert isinstance(found, dict), record
    return found


@pytest.mark.req("HR7")
def test_a_failed_tool_exports_its_class_not_its_output(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    model_server.enqueue(
        tool_call("Read", {"file_path": str(project / MISSING)}), text("gone"), text("none")
    )
    proc = run_wave("-p", "read it", cwd=project, server=model_server, env=JSONL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    raw, got = exported(isolated_home)
    (tool,) = named(got, "wave.tool")
    assert attributes(tool)["success"] is False
    assert attributes(tool)["error"] == "tool_error"
    assert MISSING not in raw


@pytest.mark.req("HR7")
def test_a_refused_tool_is_permission_denied(
    model_server: ModelServer, project: Path, receiver: OtlpReceiver
) -> None:
    target = project / "new-secret-name.txt"
    model_server.enqueue(
        tool_call("Write", {"file_path": str(target), "content": "x\n"}), text("ok"), text("none")
    )
    env = {"OTEL_ENABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}
    proc = run_wave("-p", "write", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    tool = receiver.received.span("wave.tool")
    assert tool.attributes["error"] == "permission_denied"


@pytest.mark.req("HR7")
def test_the_failed_tools_first_line_is_exported_with_tool_content_on(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    model_server.enqueue(
        tool_call("Read", {"file_path": str(project / MISSING)}), text("gone"), text("none")
    )
    env = {**JSONL, "OTEL_LOG_TOOL_CONTENT": "1"}
    proc = run_wave("-p", "read it", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    _, got = exported(isolated_home)
    (tool,) = named(got, "wave.tool")
    assert MISSING in str(attributes(tool)["error"])


@pytest.mark.req("HR7")
def test_a_provider_error_echoing_the_prompt_is_exported_as_its_class(
    model_server: ModelServer, project: Path, isolated_home: Path, receiver: OtlpReceiver
) -> None:
    model_server.enqueue(error(400, f"bad request: {PROMPT}"))
    env = {
        **JSONL,
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
    }
    proc = run_wave("-p", PROMPT, cwd=project, server=model_server, env=env)
    assert proc.returncode == 1, proc.stderr
    raw, got = exported(isolated_home)  # the events (logs) over JSONL
    assert PROMPT not in raw
    (failure,) = named(got, "error")
    event = attributes(failure)
    assert event["error_class"] == "http_4xx" and event["message"] == "http_4xx"
    assert event["error_type"] == "ModelHTTPError"
    assert "ModelHTTPError" in str(event["stack"]) and "zebra" not in str(event["stack"])
    request = receiver.received.span("wave.llm_request")  # the spans over OTLP
    assert request.attributes["error"] == "http_4xx"
    assert all(PROMPT not in str(v) for s in receiver.received.spans for v in s.attributes.values())
