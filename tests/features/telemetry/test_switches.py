"""Telemetry is off by default with no OpenTelemetry module imported; the settings turn it on,
the OTEL_* variables win; the JSONL file (one record a line, rotated) and the console exporter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_lazy_imports import imported_modules, loaded
from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore
from wave_tui.features.telemetry.config import parse_headers
from wave_tui.features.telemetry.jsonl import JsonlFile

pytestmark = pytest.mark.timeout(120)


def records(home: Path) -> list[dict[str, object]]:
    lines = (home / ".wave" / "telemetry.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.req("OT1")
@pytest.mark.parametrize("on", [False, True])
def test_off_by_default_no_opentelemetry_module_is_imported(
    model_server: ModelServer, project: Path, isolated_home: Path, on: bool
) -> None:
    model_server.enqueue(text("hello"), text("none"))
    env = {"PYTHONPROFILEIMPORTTIME": "1"}
    if on:
        env["OTEL_TRACES_EXPORTER"] = "jsonl"  # an exporter set turns it on
    proc = run_wave("-p", "hi", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "hello\n"
    names = imported_modules(proc.stderr)
    assert "wave_tui.session.facade" in names  # the probe works
    assert loaded(names, "opentelemetry") is on
    assert loaded(names, "wave_tui.features.telemetry.hooks") is on
    assert (isolated_home / ".wave" / "telemetry.jsonl").exists() is on


@pytest.mark.req("OT2")
@pytest.mark.req("OT3")
def test_settings_turn_it_on_with_the_jsonl_exporter_one_record_a_line(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    (isolated_home / ".wave").mkdir()
    exporters = {f"{s}Exporter": "jsonl" for s in ("traces", "metrics", "logs")}
    settings = {"monitoring": {"telemetry": {"enabled": True, **exporters}}}
    (isolated_home / ".wave" / "settings.json").write_text(json.dumps(settings))
    model_server.enqueue(text("hello"), text("none"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    got = records(isolated_home)
    spans = {r["name"] for r in got if r["signal"] == "span"}
    assert {"wave.interaction", "wave.llm_request", "wave.extraction"} <= spans
    events = {r["name"] for r in got if r["signal"] == "event"}
    assert {"session_start", "user_prompt", "session_end"} <= events
    assert any(r["signal"] == "metric" and r["name"] == "wave.token.usage" for r in got)


@pytest.mark.req("OT2")
def test_the_environment_wins_over_the_settings(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    (isolated_home / ".wave").mkdir()
    settings = {"monitoring": {"telemetry": {"enabled": True, "tracesExporter": "jsonl"}}}
    (isolated_home / ".wave" / "settings.json").write_text(json.dumps(settings))
    model_server.enqueue(text("hello"), text("none"), text("again"), text("none"))
    off = run_wave("-p", "hi", cwd=project, server=model_server, env={"OTEL_ENABLED": "false"})
    assert off.returncode == 0, off.stderr
    assert not (isolated_home / ".wave" / "telemetry.jsonl").exists()
    env = {"OTEL_TRACES_EXPORTER": "console", "OTEL_METRICS_EXPORTER": "none"}
    console = run_wave("-p", "hi", cwd=project, server=model_server, env=env)
    assert console.returncode == 0, console.stderr
    assert console.stdout == "again\n"  # the console exporter writes to stderr only
    assert '"name": "wave.interaction"' in console.stderr
    assert not (isolated_home / ".wave" / "telemetry.jsonl").exists()


@pytest.mark.req("OT3")
def test_the_jsonl_file_is_rotated_past_its_cap(tmp_path: Path) -> None:
    path = tmp_path / "telemetry.jsonl"
    file = JsonlFile(path, max_bytes=200)
    for i in range(10):
        file.write([{"n": i, "pad": "x" * 40}])
    kept = [json.loads(line)["n"] for line in path.read_text().splitlines()]
    old = [
        json.loads(line)["n"]
        for line in path.with_name("telemetry.jsonl.1").read_text().splitlines()
    ]
    assert kept[-1] == 9 and path.stat().st_size <= 200
    assert old and max(old) < min(kept)


@pytest.mark.req("OT3")
def test_headers_take_the_opentelemetry_form_or_a_json_object() -> None:
    assert parse_headers("a=1, b=x%20y") == {"a": "1", "b": "x y"}
    assert parse_headers('{"Authorization": "Bearer t"}') == {"Authorization": "Bearer t"}
    assert parse_headers("no-equals-sign") is None


@pytest.mark.req("OT2")
def test_the_settings_keys_are_declared_and_a_wrong_value_is_named(
    tmp_path: Path, isolated_home: Path
) -> None:
    paths = WavePaths.for_workdir(tmp_path, home=isolated_home)
    paths.user_settings.parent.mkdir(parents=True)
    good = {"monitoring": {"telemetry": {"enabled": True, "tracesExporter": "jsonl"}}}
    paths.user_settings.write_text(json.dumps(good))
    assert SettingsStore(paths, environ={}).current().problems == ()
    bad = {"monitoring": {"telemetry": {"tracesExporter": "zipkin"}}}
    paths.user_settings.write_text(json.dumps(bad))
    problems = SettingsStore(paths, environ={}).current().problems
    assert len(problems) == 1 and "monitoring" in problems[0]


@pytest.mark.req("FH10")
def test_one_exporter_named_takes_the_other_signals_along(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """`OTEL_TRACES_EXPORTER=jsonl` alone: metrics and events go to the same file, not to an
    OTLP endpoint nobody runs (which cost a wait and a warning at every exit)."""
    model_server.enqueue(text("hello"), text("none"))
    env = {"OTEL_TRACES_EXPORTER": "jsonl"}
    proc = run_wave("-p", "hi", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    signals = {r["signal"] for r in records(isolated_home)}
    assert {"span", "metric", "event"} <= signals


@pytest.mark.req("FH10")
@pytest.mark.req("OT5")
def test_wave_memory_add_is_a_memory_write_of_the_user(project: Path, isolated_home: Path) -> None:
    proc = run_wave(
        "memory",
        "add",
        "--scope",
        "project",
        "run the tests with make check",
        cwd=project,
        env={"OTEL_TRACES_EXPORTER": "jsonl"},
    )
    assert proc.returncode == 0, proc.stderr
    writes = [r for r in records(isolated_home) if r["name"] == "memory_write"]
    assert len(writes) == 1
    assert writes[0]["attributes"]["source"] == "user"  # type: ignore[index]
