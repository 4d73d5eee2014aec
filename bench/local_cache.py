"""Benchmark: the extraction fork's first request on the local engine, prefix cached vs not.

    PYTHONPATH=. python bench/local_cache.py [--repeat 3] [--model PATH.gguf]

Runs one real `wave -p` turn through a recording proxy to capture the main request and the
fork's first request, then replays the pair: once as wave sends it (the main request leaves its
prefix in llama.cpp's slot cache), once with `cache_prompt: false` on the fork request (the whole
prompt is processed again). Prints token counts, the cached ratio and the timings.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.local.proxy import Exchange, RecordingProxy  # noqa: E402
from wave_tui.llm.local_server import (  # noqa: E402
    BUNDLED_MODEL_NAME,
    LocalModelServer,
    bundled_model_path,
)

OUTPUT_TOKENS = 12


def capture_turn(server: LocalModelServer) -> tuple[Exchange, Exchange]:
    """(last main request, fork's first request) of one real `wave -p` turn."""
    with tempfile.TemporaryDirectory() as tmp, RecordingProxy(server.url) as proxy:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("WAVE_")}
        env.update(
            HOME=str(home),
            PYTHONPATH=str(REPO),
            WAVE_BASE_URL=f"{proxy.url}/v1",
            WAVE_MODEL=server.model_name,
            WAVE_API_KEY="local",
            WAVE_MAX_OUTPUT_TOKENS=str(OUTPUT_TOKENS),
        )
        subprocess.run(
            [sys.executable, "-m", "wave_tui", "-p", "Say hello."],
            cwd=project,
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )
        exchanges = list(proxy.exchanges)
    first_fork = next(i for i, e in enumerate(exchanges) if e.is_fork)
    main = [e for e in exchanges[:first_fork] if not e.is_fork][-1]
    return main, exchanges[first_fork]


def post(http: httpx.Client, server: LocalModelServer, body: dict[str, Any]) -> tuple[float, dict]:
    plain = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
    started = time.perf_counter()
    reply = http.post(f"{server.base_url}/chat/completions", json=plain)
    reply.raise_for_status()
    return time.perf_counter() - started, reply.json()


def cached_of(reply: dict[str, Any]) -> int:
    return int((reply["usage"].get("prompt_tokens_details") or {}).get("cached_tokens") or 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--model", type=Path, default=None, help="GGUF (default: bundled)")
    args = parser.parse_args()
    model = args.model or bundled_model_path()
    name = None if args.model else BUNDLED_MODEL_NAME
    with LocalModelServer(model, model_name=name, max_output_tokens=OUTPUT_TOKENS) as server:
        main_req, fork_req = capture_turn(server)
        print(f"model: {server.model_name}  cpu cores: {os.cpu_count()}")
        print(
            f"live wave turn: main prompt {main_req.prompt_tokens} tok, fork prompt "
            f"{fork_req.prompt_tokens} tok, fork cached {fork_req.cached_tokens} tok "
            f"= {fork_req.cached_tokens / main_req.prompt_tokens:.1%} of the shared prefix "
            f"(fork first request {fork_req.elapsed_s:.2f} s)"
        )
        warm: list[float] = []
        cold: list[float] = []
        ratios: list[float] = []
        processed: dict[str, int] = {}
        with httpx.Client(timeout=600) as http:
            for _ in range(args.repeat):
                _, main_reply = post(http, server, main_req.body)
                seconds, fork_reply = post(http, server, fork_req.body)
                warm.append(seconds)
                processed["cached"] = fork_reply["timings"]["prompt_n"]
                ratios.append(cached_of(fork_reply) / main_reply["usage"]["prompt_tokens"])
                post(http, server, main_req.body)
                seconds, fork_reply = post(http, server, {**fork_req.body, "cache_prompt": False})
                assert cached_of(fork_reply) == 0, "llama.cpp ignored cache_prompt: false"
                cold.append(seconds)
                processed["defeated"] = fork_reply["timings"]["prompt_n"]
    w, c = statistics.median(warm), statistics.median(cold)
    print(f"replayed x{args.repeat} (medians):")
    print(f"  fork first request, prefix cached:  {w:.2f} s ({processed['cached']} tok processed)")
    print(
        f"  fork first request, cache defeated: {c:.2f} s ({processed['defeated']} tok processed)"
    )
    print(f"  speed-up {c / w:.1f}x; cached/shared tokens {statistics.median(ratios):.1%}")


if __name__ == "__main__":
    main()
