"""Family 5: model endpoint faults against the installed `wave -p` (X13, X14, PV, C1).

Each fault is a real `wave -p` subprocess against a raw socket server that misbehaves byte for
byte. Ending cleanly means: within a bounded time, either an answer (exit 0, text on stdout) or
exit 1/2 with one clear `wave: …` line on stderr, and never a traceback.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial.raw_server import (
    RawServer,
    answer,
    delta,
    head,
    reset,
    respond,
    sse,
    tool_delta,
)
from tests.adversarial.runner import Result, Run, run, run_all
from tests.adversarial.tally import figure

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("C1")

Behaviour = Callable[[int, Any, socket.socket], None]
# A hang, not a timing: the slowest clean ending is four attempts with backoff (a few seconds);
# a regression (waiting out Retry-After 3600, 4 x 300 s with no first byte) blows far past this.
BOUND_S = 150.0


@dataclass(frozen=True)
class Fault:
    id: str
    behaviour: Behaviour
    codes: frozenset[int]
    env: dict[str, str] = field(default_factory=dict)
    args: tuple[str, ...] = ("-p", "hi")
    answer: str = ""  # when it must answer: text expected on stdout
    check: Callable[[Path], str | None] | None = None

    @property
    def is_config_error(self) -> bool:
        """A configuration no request can fix: said at once, nothing sent (X14)."""
        return self.id == "crlf-in-header" or self.id.startswith("base-url")


def always(fn: Callable[[socket.socket], None]) -> Behaviour:
    return lambda n, body, conn: fn(conn)


def first_then_ok(fn: Callable[[socket.socket], None]) -> Behaviour:
    def behave(n: int, body: Any, conn: socket.socket) -> None:
        fn(conn) if n == 1 else answer(conn, "RECOVERED")

    return behave


def status(
    code: str,
    body: bytes = b'{"error": {"message": "boom"}}',
    ctype: str = "application/json",
    extra: str = "",
) -> Behaviour:
    return always(lambda c: respond(c, code, ctype, body, extra))


def stream(data: bytes) -> Behaviour:
    return always(lambda c: respond(c, "200 OK", "text/event-stream", data))


def never_answer(conn: socket.socket) -> None:
    time.sleep(30)


def headers_then_reset(conn: socket.socket) -> None:
    conn.sendall(head() + b"data: " + json.dumps(delta("par")).encode() + b"\n\n")
    reset(conn)


def cut_mid_way(conn: socket.socket) -> None:
    conn.sendall(head() + sse(delta("Hello, "), delta("wor"), done=False)[:-7])


def big_write(n: int, body: Any, conn: socket.socket) -> None:
    if n == 1:
        content = "y" * (8 * 1024 * 1024)
        args = json.dumps({"file_path": "big.txt", "content": content})
        pieces = [args[i : i + 4096] for i in range(0, len(args), 4096)]
        call = {"index": 0, "id": "call_1", "type": "function",
                "function": {"name": "Write", "arguments": ""}}  # fmt: skip
        chunks = [delta(tool_calls=[call])]
        chunks += [delta(tool_calls=[{"index": 0, "function": {"arguments": p}}]) for p in pieces]
        chunks.append(delta(finish="tool_calls"))
        respond(conn, "200 OK", "text/event-stream", sse(*chunks))
    else:
        answer(conn, "WROTE")


def _big_written(proj: Path) -> str | None:
    path = proj / "big.txt"
    if not path.is_file() or path.stat().st_size != 8 * 1024 * 1024:
        return "the 8 MB Write did not land"
    return None


def bad_tool_json(n: int, body: Any, conn: socket.socket) -> None:
    if n == 1:
        respond(
            conn, "200 OK", "text/event-stream", sse(*tool_delta("Read", '{"file_path": "a.txt"'))
        )
    else:
        answer(conn, "FIXED")


def unknown_tool(n: int, body: Any, conn: socket.socket) -> None:
    if n == 1:
        respond(conn, "200 OK", "text/event-stream", sse(*tool_delta("NoSuchTool", "{}")))
    else:
        answer(conn, "FIXED")


USAGE_NA = {"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [],
            "usage": {"prompt_tokens": "n/a", "completion_tokens": None, "total_tokens": [1]}}  # fmt: skip
HTML = (
    b"<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1>"
    + b"<p>x</p>" * 500
    + b"</body></html>"
)
JSON_REPLY = json.dumps({"id": "c1", "object": "chat.completion", "model": "m", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "PLAIN"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()  # fmt: skip
FIRST_BYTE = {"WAVE_FIRST_BYTE_TIMEOUT": "1"}
ONE, ZERO = frozenset({1}), frozenset({0})
CONFIG = frozenset({1, 2})  # said at once; the contract asks for exit != 0 and one line
FAULTS: list[Fault] = [
    Fault("500-always", status("500 Internal Server Error"), ONE),
    Fault(
        "500-then-ok",
        first_then_ok(lambda c: respond(c, "500 Internal Server Error", "application/json", b"{}")),
        ZERO,
        answer="RECOVERED",
    ),
    Fault(
        "429-retry-after-3600", status("429 Too Many Requests", extra="Retry-After: 3600\r\n"), ONE
    ),
    Fault(
        "429-retry-after-garbage",
        first_then_ok(
            lambda c: respond(
                c, "429 Too Many Requests", "application/json", b"{}", "Retry-After: soon-ish\r\n"
            )
        ),
        ZERO,
        answer="RECOVERED",
    ),
    Fault("reset-before-headers", always(reset), ONE),
    Fault("reset-before-headers-then-ok", first_then_ok(reset), ZERO, answer="RECOVERED"),
    Fault("reset-after-headers", always(headers_then_reset), ONE),
    Fault("close-without-response", always(lambda c: c.close()), ONE),
    Fault("never-answers", always(never_answer), ONE, env=FIRST_BYTE),
    Fault("stream-cut-mid-way", always(cut_mid_way), frozenset({0, 1})),
    Fault(
        "malformed-sse",
        stream(b"data: {not json\n\ndata: \x00\xff\n\n: comment\n\ndata: [DONE]\n\n"),
        frozenset({0, 1}),
    ),
    Fault(
        "sse-garbage-then-answer",
        stream(b'event: x\ndata: {"oops": 1}\n\n' + sse(delta("GOOD"), delta(finish="stop"))),
        ZERO,
        answer="GOOD",
    ),
    Fault(
        "malformed-usage",
        stream(sse(delta("COUNTED"), delta(finish="stop"), USAGE_NA)),
        ZERO,
        answer="COUNTED",
    ),
    Fault("invalid-tool-json", bad_tool_json, ZERO, answer="FIXED"),
    Fault("unknown-tool", unknown_tool, ZERO, answer="FIXED"),
    Fault(
        "8mb-tool-arguments",
        big_write,
        ZERO,
        args=("-p", "write", "--permission-mode", "acceptEdits"),
        answer="WROTE",
        check=_big_written,
    ),
    Fault(
        "empty-choices",
        stream(sse({"id": "c", "object": "chat.completion.chunk", "choices": []})),
        ONE,
    ),
    Fault(
        "finish-length", stream(sse(delta("TRUNCA"), delta(finish="length"))), ZERO, answer="TRUNCA"
    ),
    Fault("only-done", stream(b"data: [DONE]\n\n"), ONE),
    Fault(
        "null-content-deltas",
        stream(
            sse(
                delta(None),
                {"choices": [{"index": 0, "delta": {"content": None}}]},
                delta("NULLS"),
                delta(finish="stop"),
            )
        ),
        ZERO,
        answer="NULLS",
    ),
    Fault("html-502", status("502 Bad Gateway", HTML, "text/html"), ONE),
    Fault("html-200", status("200 OK", HTML, "text/html"), ONE),
    Fault("json-200-not-stream", status("200 OK", JSON_REPLY), ZERO, answer="PLAIN"),
    Fault(
        "truncated-json-body",
        always(
            lambda c: c.sendall(
                head(ctype="application/json", extra="Content-Length: 500\r\n") + JSON_REPLY[:40]
            )
        ),
        ONE,
    ),
    Fault(
        "401", status("401 Unauthorized", b'{"error": {"message": "bad key"}}'), frozenset({1, 2})
    ),
    Fault(
        "404-model",
        status("404 Not Found", b'{"error": {"message": "model not found"}}'),
        frozenset({1, 2}),
    ),
    Fault("bad-status-line", always(lambda c: c.sendall(b"HTTP/1.1 abc\r\n\r\n")), ONE),
    Fault(
        "huge-header",
        always(lambda c: c.sendall(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n")),
        ONE,
    ),
    Fault(
        "crlf-in-header",
        always(answer),
        CONFIG,
        env={"WAVE_CUSTOM_HEADERS": json.dumps({"X-Team": "a\r\nInjected: 1"})},
    ),
    Fault(
        "custom-headers-not-json",
        always(answer),
        frozenset({0, 2}),
        env={"WAVE_CUSTOM_HEADERS": "{nope"},
        answer="OK",
    ),
    Fault("base-url-no-scheme", always(answer), CONFIG, env={"WAVE_BASE_URL": "127.0.0.1:9/v1"}),
    Fault(
        "base-url-bad-scheme", always(answer), CONFIG, env={"WAVE_BASE_URL": "htp://127.0.0.1/v1"}
    ),
    Fault(
        "base-url-unclosed-ipv6", always(answer), CONFIG, env={"WAVE_BASE_URL": "http://[::1/v1"}
    ),
    Fault(
        "base-url-space", always(answer), CONFIG, env={"WAVE_BASE_URL": "http://exa mple.com/v1"}
    ),
    Fault(
        "base-url-bad-port",
        always(answer),
        CONFIG,
        env={"WAVE_BASE_URL": "http://127.0.0.1:99999/v1"},
    ),
    Fault(
        "connection-refused", always(answer), ONE, env={"WAVE_BASE_URL": "http://127.0.0.1:1/v1"}
    ),
]


def judge(fault: Fault, result: Result, proj: Path, requests: int) -> str | None:
    if result.code is None:
        return f"did not end within {result.elapsed_s:.0f} s"
    if "Traceback" in result.stderr:
        return f"traceback: {result.stderr.strip().splitlines()[-1]}"
    if result.code not in fault.codes:
        return f"exit {result.code} (expected {sorted(fault.codes)}): {result.stderr.strip()[:300]}"
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    if len(lines) > 1 or any(not ln.startswith("wave:") for ln in lines):
        return f"stderr is not one clear line: {lines[:3]}"
    if any(len(ln) > 400 for ln in lines):
        return f"a stderr line of {max(map(len, lines))} chars"
    if result.code == 0 and not result.stdout.strip():
        return "exit 0 without an answer"
    if result.code != 0 and not lines:
        return f"exit {result.code} without a line on stderr"
    if fault.answer and fault.answer not in result.stdout:
        return f"the answer {fault.answer!r} is missing: {result.stdout[:100]!r}"
    if fault.is_config_error and requests:
        return f"a configuration error, yet {requests} request(s) reached the server"
    if fault.check is not None:
        return fault.check(proj)
    return None


PARTS = 3  # the faults in three tests, so xdist spreads them over both cores


@pytest.mark.req("X13", "X14")
def test_x13_x14_model_fault_count() -> None:
    assert len(FAULTS) >= 20
    assert len({fault.id for fault in FAULTS}) == len(FAULTS)


@pytest.mark.req("X13", "X14")
@pytest.mark.parametrize("part", range(PARTS))
def test_x13_x14_model_fault_figure(part: int, tmp_path: Path) -> None:
    """Family 5 figure (one part of the faults): every model fault ends cleanly within its
    bound."""
    faults = FAULTS[part::PARTS]

    def job(n: int, fault: Fault) -> Callable[[], str | None]:
        def go() -> str | None:
            home, proj = tmp_path / f"{n}-home", tmp_path / f"{n}-project"
            home.mkdir()
            proj.mkdir()
            server = RawServer(fault.behaviour)
            try:
                env = {"WAVE_BASE_URL": server.base_url, "WAVE_API_KEY": "k",
                       "WAVE_MODEL": "test-model", "WAVE_DISABLE_AUTO_MEMORY": "1"}  # fmt: skip
                spec = Run(list(fault.args), env=fault.env, timeout=BOUND_S)
                result = run(spec, home, proj, env)
                return judge(fault, result, proj, server.count)
            finally:
                server.close()

        return go

    verdicts = run_all([job(n, f) for n, f in enumerate(faults)], workers=4)
    handled, total, report = figure(
        f"model faults (part {part + 1} of {PARTS})",
        zip([f.id for f in faults], verdicts, strict=True),
    )
    assert handled == total, report
