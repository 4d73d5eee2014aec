"""Benchmarks of the agent core. Figures: `pytest tests/bench -m bench --benchmark-enable`.

- `wave -p` wall time for a one-turn answer, next to `python -c "import httpx"` in the same run;
- the agent loop's overhead per request: a service turn minus a bare client request.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from tests.model_server import ModelServer
from tests.wave_cli import run_wave
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.llm.client import ClientConfig, ModelClient


def test_bench_import_httpx_baseline(benchmark) -> None:
    benchmark.pedantic(
        lambda: subprocess.run([sys.executable, "-c", "import httpx"], check=True),
        rounds=5,
        iterations=1,
    )


def test_bench_wave_print_one_turn(benchmark, model_server: ModelServer, project: Path) -> None:
    def once() -> None:
        proc = run_wave("-p", "hi", cwd=project, server=model_server)
        assert proc.returncode == 0, proc.stderr

    benchmark.pedantic(once, rounds=5, iterations=1)


@pytest.fixture
def service(model_server: ModelServer, project: Path) -> AgentService:
    return AgentService(
        AgentOptions(
            workdir=project,
            environ={"WAVE_BASE_URL": model_server.base_url, "WAVE_MODEL": "m"},
        )
    )


def test_bench_service_turn(benchmark, service: AgentService) -> None:
    loop = asyncio.new_event_loop()
    benchmark.pedantic(lambda: loop.run_until_complete(service.run_turn("hi")), rounds=30)
    loop.run_until_complete(service.destroy())
    loop.close()


def test_bench_bare_client_request(
    benchmark, service: AgentService, model_server: ModelServer
) -> None:
    loop = asyncio.new_event_loop()
    body = service.build_request()
    client = ModelClient(ClientConfig(base_url=model_server.base_url))
    benchmark.pedantic(lambda: loop.run_until_complete(client.stream_chat(body)), rounds=30)
    loop.run_until_complete(client.aclose())
    loop.close()
