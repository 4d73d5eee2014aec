"""The events beyond a plain turn: a failed request (`error`), a compaction (`compaction`), and
a memory write the user made through the session (`memory_write` with source `user`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.features.telemetry.otlp_receiver import OtlpReceiver
from tests.model_server import ModelServer, error, text
from tests.wave_cli import run_wave
from wave_tui.session.facade import create_session
from wave_tui.session.types import AgentOptions

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    server = OtlpReceiver().start()
    yield server
    server.stop()


def otlp_env(receiver: OtlpReceiver) -> dict[str, str]:
    return {"OTEL_ENABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}


# The error's own text only with both content switches on: it may echo the prompt.
CONTENT_ON = {"OTEL_LOG_USER_PROMPTS": "1", "OTEL_LOG_TOOL_CONTENT": "1"}


@pytest.mark.req("OT5")
@pytest.mark.req("HR7")
def test_a_failed_request_is_an_error_event_and_a_failed_span(
    model_server: ModelServer, project: Path, receiver: OtlpReceiver
) -> None:
    model_server.enqueue(error(400, "the model refused the body"))
    env = {**otlp_env(receiver), **CONTENT_ON}
    proc = run_wave("-p", "hi", cwd=project, server=model_server, env=env)
    assert proc.returncode == 1, proc.stderr
    got = receiver.received
    request = got.span("wave.llm_request")
    assert request.attributes["success"] is False
    assert "refused the body" in request.attributes["error"]
    assert got.span("wave.interaction").attributes["interaction.status"] == "error"
    (failure,) = got.named("error")
    assert failure.attributes["error_type"] and "refused the body" in failure.attributes["message"]
    assert "refused the body" in failure.attributes["stack"]
    assert failure.attributes["error_class"] == "http_4xx"
    assert failure.span_id == request.span_id


@pytest.mark.req("OT5")
def test_a_compaction_is_an_event_with_the_sizes_before_and_after(
    model_server: ModelServer, project: Path, receiver: OtlpReceiver
) -> None:
    model_server.enqueue(text("first answer " * 50), text("none"))
    first = run_wave("-p", "hi", cwd=project, server=model_server)
    assert first.returncode == 0, first.stderr
    model_server.enqueue(text("<summary>we said hi</summary>"))
    proc = run_wave(
        "-c", "-p", "/compact", cwd=project, server=model_server, env=otlp_env(receiver)
    )
    assert proc.returncode == 0, proc.stderr
    (compaction,) = receiver.received.named("compaction")
    attributes = compaction.attributes
    assert attributes["model"] == "test-model" and attributes["trigger"] == "manual"
    assert attributes["beforeTokens"] > attributes["afterTokens"] > 0


@pytest.mark.req("OT5")
@pytest.mark.req("OT6")
async def test_a_memory_the_user_adds_is_a_memory_write_from_the_user(
    model_server: ModelServer, project: Path, receiver: OtlpReceiver
) -> None:
    environ = {**model_server.env(), **otlp_env(receiver)}
    session = create_session(AgentOptions(workdir=project, environ=environ))
    added = await session.memory.add("project", "Run the tests with pytest")
    assert added.added
    await session.close()
    got = receiver.received
    (write,) = got.named("memory_write")
    assert write.attributes["source"] == "user" and write.attributes["scope"] == "project"
    assert write.attributes["path"] == str(project / "AGENTS.md")
    assert got.total("wave.memory.write", source="user", scope="project") == 1
