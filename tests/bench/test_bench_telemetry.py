"""`wave -p` one turn with telemetry off, on with the JSONL file, and on with OTLP/HTTP to a
local collector, paired round by round. Printed, never asserted (`-s` shows the figures): what
telemetry costs when it is on; off, the run is the plain start-up of `test_bench_startup.py`."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import pytest

from tests.bench.test_bench_startup import ROUNDS, Timing, _env, _median_ratio, _timed
from tests.features.telemetry.otlp_receiver import OtlpReceiver
from tests.model_server import ModelServer


@pytest.mark.bench
def test_bench_wave_print_with_telemetry_off_and_on(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    receiver = OtlpReceiver().start()
    try:
        base = _env(model_server)
        envs = {
            "off": base,
            "jsonl": {
                **base,
                **{f"OTEL_{s}_EXPORTER": "jsonl" for s in ("TRACES", "METRICS", "LOGS")},
            },
            "otlp/http": {
                **base,
                "OTEL_ENABLED": "1",
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
            },
        }
        cmd = [sys.executable, "-m", "wave_tui", "-p", "hi"]
        for env in envs.values():  # warm-up: bytecode written, page cache filled
            _timed(cmd, project, env)
        runs: dict[str, list[Timing]] = {name: [] for name in envs}
        for _ in range(ROUNDS):
            for name, env in envs.items():
                runs[name].append(_timed(cmd, project, env))
    finally:
        receiver.stop()
    lines = [f"\nwave -p one turn, telemetry off and on (median of {ROUNDS} rounds):"]
    for name, timings in runs.items():
        lines.append(
            f"  {name}: CPU {statistics.median(t.cpu for t in timings) * 1e3:.0f} ms, "
            f"wall {statistics.median(t.wall for t in timings) * 1e3:.0f} ms, "
            f"answer on stdout at {statistics.median(t.answer for t in timings) * 1e3:.0f} ms"
        )
    off = runs["off"]
    for name in ("jsonl", "otlp/http"):
        on = runs[name]
        lines.append(
            f"  {name} / off: {_median_ratio([t.cpu for t in on], [t.cpu for t in off]):.2f}x CPU, "
            f"{_median_ratio([t.wall for t in on], [t.wall for t in off]):.2f}x wall, "
            f"{_median_ratio([t.answer for t in on], [t.answer for t in off]):.2f}x to the answer"
        )
    print("\n".join(lines))
