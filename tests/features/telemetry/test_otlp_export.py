"""Telemetry through real `wave -p` runs against the scripted model server, exported over
OTLP/HTTP to a local receiver that decodes the protobuf: the span tree and its attributes, the
events, the metrics, the PII switches and the headers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.features.telemetry.otlp_receiver import GrpcOtlpReceiver, OtlpReceiver
from tests.model_server import ModelServer, text, tool_call, tool_calls
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    server = OtlpReceiver().start()
    yield server
    server.stop()


def otlp_env(receiver: OtlpReceiver, **extra: str) -> dict[str, str]:
    return {"OTEL_ENABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, **extra}


@pytest.mark.req("OT3")
@pytest.mark.req("OT4")
@pytest.mark.req("OT5")
@pytest.mark.req("OT6")
def test_a_turn_with_a_tool_arrives_as_a_span_tree_with_events_and_metrics(
    model_server: ModelServer, project: Path, receiver: OtlpReceiver
) -> None:
    (project / "notes.txt").write_text("alpha\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": str(project / "notes.txt")}),
        text("read it"),
        text("nothing to save"),  # the extraction fork
    )
    proc = run_wave("-p", "look", cwd=project, server=model_server, env=otlp_env(receiver))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout == "read it\n"
    got = receiver.received

    interaction = got.span("wave.interaction")
    assert interaction.parent_id == ""
    assert interaction.attributes["user_prompt_length"] == 4
    assert interaction.attributes["interaction.sequence"] == 1
    assert "user_prompt" not in interaction.attributes
    assert interaction.resource["service.name"] == "wave"
    assert {"service.version", "os.type", "host.arch"} <= set(interaction.resource)

    requests = [s for s in got.spans if s.name == "wave.llm_request"]
    assert len(requests) == 2
    assert {s.parent_id for s in requests} == {interaction.span_id}
    first, second = sorted(requests, key=lambda s: not s.attributes["has_tool_call"])
    assert first.attributes["has_tool_call"] is True and second.attributes["has_tool_call"] is False
    for span in requests:
        assert span.attributes["model"] == "test-model"
        assert span.attributes["success"] is True
        assert span.attributes["input_tokens"] > 0 and span.attributes["output_tokens"] > 0
        assert {"cache_read_tokens", "cache_creation_tokens", "ttft_ms", "ttlt_ms"} <= set(
            span.attributes
        )

    tool = got.span("wave.tool")
    assert tool.parent_id == interaction.span_id
    assert tool.attributes["tool_name"] == "Read"
    assert tool.attributes["success"] is True
    assert tool.attributes["duration_ms"] >= 0
    assert "tool_input" not in tool.attributes and "tool_output" not in tool.attributes

    extraction = got.span("wave.extraction")
    assert extraction.parent_id == interaction.span_id
    assert extraction.attributes["success"] is True
    assert len({s.trace_id for s in got.spans}) == 1

    (start,) = got.named("session_start")
    assert start.attributes["model"] == "test-model"
    assert start.attributes["workdir"] == str(project)
    (prompt,) = got.named("user_prompt")
    assert prompt.attributes["prompt_length"] == 4 and "prompt" not in prompt.attributes
    assert prompt.span_id == interaction.span_id
    (decision,) = got.named("tool_decision")
    assert decision.attributes["tool_name"] == "Read"
    assert decision.attributes["decision"] == "accept"
    (end,) = got.named("session_end")
    assert end.attributes["totalTokens"] > 0 and end.attributes["exitReason"] == "exit"

    assert got.total("wave.token.usage", type="input", model="test-model") > 0
    assert got.total("wave.token.usage", type="output", model="test-model") > 0
    assert got.total("wave.tool.decision", tool_name="Read", decision="accept") == 1


@pytest.mark.req("OT4")
def test_parallel_agent_calls_keep_their_parent_and_subagents_nest_under_them(
    model_server: ModelServer, project: Path, receiver: OtlpReceiver
) -> None:
    calls = [
        ("Agent", {"description": f"job {i}", "prompt": f"p{i}", "subagent_type": "Explore"})
        for i in (1, 2)
    ]
    model_server.enqueue(
        tool_calls(calls), text("sub done"), text("sub done"), text("all done"), text("none")
    )
    proc = run_wave("-p", "go", cwd=project, server=model_server, env=otlp_env(receiver))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = receiver.received
    interaction = got.span("wave.interaction")
    agents = [s for s in got.spans if s.name == "wave.tool"]
    assert [s.attributes["tool_name"] for s in agents] == ["Agent", "Agent"]
    assert {s.parent_id for s in agents} == {interaction.span_id}
    for agent in agents:
        children = [s for s in got.spans if s.parent_id == agent.span_id]
        assert [s.name for s in children] == ["wave.llm_request"]
    main_requests = [
        s for s in got.spans if s.name == "wave.llm_request" and s.parent_id == interaction.span_id
    ]
    assert len(main_requests) == 2


@pytest.mark.req("OT7")
def test_prompt_text_and_tool_content_only_with_their_switches(
    model_server: ModelServer, project: Path, receiver: OtlpReceiver
) -> None:
    (project / "notes.txt").write_text("secret-content\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": str(project / "notes.txt")}),
        text("ok"),
        text("none"),
    )
    env = otlp_env(receiver, OTEL_LOG_USER_PROMPTS="1", OTEL_LOG_TOOL_CONTENT="1")
    proc = run_wave("-p", "my private prompt", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = receiver.received
    assert got.span("wave.interaction").attributes["user_prompt"] == "my private prompt"
    (prompt,) = got.named("user_prompt")
    assert prompt.attributes["prompt"] == "my private prompt"
    tool = got.span("wave.tool")
    assert json.loads(tool.attributes["tool_input"]) == {"file_path": str(project / "notes.txt")}
    assert "secret-content" in tool.attributes["tool_output"]


@pytest.mark.req("OT3")
@pytest.mark.parametrize(
    "headers",
    ["x-team=wave,authorization=Bearer%20tok", '{"x-team": "wave", "authorization": "Bearer tok"}'],
)
def test_headers_in_either_form_reach_the_collector(
    model_server: ModelServer, project: Path, receiver: OtlpReceiver, headers: str
) -> None:
    model_server.enqueue(text("ok"), text("none"))
    env = otlp_env(receiver, OTEL_EXPORTER_OTLP_HEADERS=headers)
    proc = run_wave("-p", "hi", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    sent = receiver.received.headers
    assert {"/v1/traces", "/v1/logs", "/v1/metrics"} <= set(receiver.received.paths)
    assert all(h["x-team"] == "wave" and h["authorization"] == "Bearer tok" for h in sent)


@pytest.mark.req("OT5")
@pytest.mark.req("OT6")
def test_memory_writes_by_the_agent_and_the_fork_say_their_source(
    model_server: ModelServer, project: Path, receiver: OtlpReceiver, isolated_home: Path
) -> None:
    (project / "a.txt").write_text("one\ntwo\n")
    agents_md = project / "AGENTS.md"
    memory = WavePaths.for_workdir(project, home=isolated_home).memory_dir / "user_prefs.md"
    model_server.enqueue(
        tool_call("Read", {"file_path": str(project / "a.txt")}),
        tool_calls(
            [
                (
                    "Edit",
                    {
                        "file_path": str(project / "a.txt"),
                        "old_string": "two",
                        "new_string": "2\n3",
                    },
                ),
                ("Write", {"file_path": str(agents_md), "content": "# Rules\nuse tabs\n"}),
            ]
        ),
        text("done"),
        tool_call(
            "Write",
            {"file_path": str(memory), "content": "---\nname: p\n---\ntabs\n"},
        ),
        text("saved"),
    )
    proc = run_wave(
        "-p",
        "edit",
        "--allowedTools",
        "Edit,Write",
        cwd=project,
        server=model_server,
        env=otlp_env(receiver),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = receiver.received
    writes = {(e.attributes["source"], e.attributes["scope"]) for e in got.named("memory_write")}
    assert ("main", "project") in writes
    assert ("fork", "auto") in writes
    assert memory.exists()
    assert got.total("wave.memory.write", source="fork", scope="auto") >= 1
    assert got.total("wave.memory.write", source="main", scope="project") == 1
    assert got.total("wave.lines.changed", type="added") >= 2
    assert got.total("wave.lines.changed", type="removed") >= 1


@pytest.mark.req("OT3")
def test_otlp_over_grpc_when_the_protocol_says_so(model_server: ModelServer, project: Path) -> None:
    receiver = GrpcOtlpReceiver().start()
    try:
        model_server.enqueue(text("ok"), text("none"))
        env = {
            "OTEL_ENABLED": "true",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
            "OTEL_EXPORTER_OTLP_HEADERS": "X-Scope-OrgID=team",
        }
        proc = run_wave("-p", "hi", cwd=project, server=model_server, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "telemetry" not in proc.stderr, proc.stderr
        got = receiver.received
        assert got.span("wave.interaction").attributes["interaction.sequence"] == 1
        assert [e.name for e in got.named("session_end")] == ["session_end"]
        assert got.total("wave.token.usage", type="input", model="test-model") > 0
        assert all(m.get("x-scope-orgid") == "team" for m in receiver.metadata)
    finally:
        receiver.stop()


@pytest.mark.req("OT5")
@pytest.mark.req("OT6")
def test_a_refused_call_is_a_rejected_decision_and_a_failed_tool_span(
    model_server: ModelServer, project: Path, receiver: OtlpReceiver
) -> None:
    target = project / "new.txt"
    model_server.enqueue(
        tool_call("Write", {"file_path": str(target), "content": "x\n"}), text("ok"), text("none")
    )
    proc = run_wave("-p", "write", cwd=project, server=model_server, env=otlp_env(receiver))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not target.exists()  # nobody can approve it in `wave -p`
    got = receiver.received
    tool = got.span("wave.tool")
    assert tool.attributes["tool_name"] == "Write" and tool.attributes["success"] is False
    assert tool.attributes["error"]
    (decision,) = got.named("tool_decision")
    assert decision.attributes["decision"] == "reject"
    assert decision.attributes["source"] == "config"
    assert got.total("wave.tool.decision", tool_name="Write", decision="reject") == 1
    assert got.total("wave.lines.changed") == 0


@pytest.mark.req("FH10")
def test_a_new_file_written_counts_its_lines_as_added(
    model_server: ModelServer, project: Path, receiver: OtlpReceiver
) -> None:
    model_server.enqueue(
        tool_call(
            "Write", {"file_path": str(project / "new.py"), "content": "a = 1\nb = 2\nc = 3\n"}
        ),
        text("wrote it"),
        text("none"),
    )
    proc = run_wave(
        "-p",
        "write",
        "--allowedTools",
        "Write",
        cwd=project,
        server=model_server,
        env=otlp_env(receiver, WAVE_DISABLE_AUTO_MEMORY="1"),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = receiver.received
    assert got.total("wave.lines.changed", type="added") == 3
    assert got.total("wave.lines.changed", type="removed") == 0
