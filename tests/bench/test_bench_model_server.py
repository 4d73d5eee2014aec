"""The scripted server's prefix-cache accounting stays flat as its history grows.

Wave's benchmarks share one long-lived server; comparing each request with every earlier one made
it slow down with its history. Printed: accounting cost per request after 10 and after 500
earlier requests of a growing conversation, and the old every-earlier-request scan on the same
history (the baseline, same run). Nothing is asserted on time.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.model_server import ModelServer, tokenize

HISTORY = 500


def _body(turn: int) -> dict[str, Any]:
    messages = [{"role": "system", "content": "You are wave. " * 200}]
    for i in range(turn):
        messages.append({"role": "user", "content": f"question {i} " * 20})
        messages.append({"role": "assistant", "content": f"answer {i} " * 40})
    return {"model": "m", "messages": messages}


def _old_scan(tokens: list[str], history: list[list[str]]) -> int:
    best = 0
    for old in history:
        n = 0
        for x, y in zip(tokens, old, strict=False):
            if x != y:
                break
            n += 1
        best = max(best, n)
    return best


@pytest.mark.bench
def test_bench_prefix_accounting_flat_in_history() -> None:
    server = ModelServer()  # not started: the accounting is called directly
    history: list[list[str]] = []
    trie_ms: dict[int, float] = {}
    scan_ms: dict[int, float] = {}
    for turn in range(1, HISTORY + 1):
        body = _body(turn % 25 + 1)  # conversations of up to 25 turns, restarted
        if turn in (10, HISTORY):
            tokens = tokenize(body)
            started = time.perf_counter()
            record = server._handle("/v1/chat/completions", {}, body)
            trie_ms[turn] = (time.perf_counter() - started) * 1e3
            started = time.perf_counter()
            cached = _old_scan(tokens, history)
            scan_ms[turn] = (time.perf_counter() - started) * 1e3
            assert record.cached_tokens == cached  # same figure as the old scan
            history.append(tokens)
            continue
        server._handle("/v1/chat/completions", {}, body)
        history.append(tokenize(body))
    print(
        f"\nmodel_server accounting per request: after 10 requests {trie_ms[10]:.2f} ms, after "
        f"{HISTORY} {trie_ms[HISTORY]:.2f} ms (includes tokenizing); old scan over the same "
        f"history {scan_ms[10]:.2f} ms -> {scan_ms[HISTORY]:.2f} ms "
        f"(ratio at {HISTORY}: {trie_ms[HISTORY] / scan_ms[HISTORY]:.2f}x)"
    )
