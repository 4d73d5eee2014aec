"""What a big memory costs each request, measured from outside: whole `wave -p` processes.

Two projects identical but for N rules (half unconditional, in the reminder of every request;
half with `paths:` frontmatter, matched against every Read) and twenty small files. Each is run
with a turn of one request (the answer) and with a turn of 21 (twenty Reads, one file each, then
the answer), all four alternating round by round. The first request's cold rule discovery and the
process's start-up are in both turns of a project, so

    per request = ((rules, 21) - (rules, 1) - (no rules, 21) + (no rules, 1)) / 20

is what N rules add to each later request: the child's user and system CPU (the scripted server
runs in this process and does no token accounting here, so its work is not counted).

Beside it, the floor from the same run: `json.dumps` of the last request's body as httpx encodes
it, and its POST over loopback to a sink, for the N-rule body less the same for the no-rule body
(what sending the bigger body costs anyway).

Run: `pytest tests/bench/test_bench_request_rules.py -m bench -n 0 -s`
(`WAVE_BENCH_SCALE=10000` for 10k rules, `WAVE_BENCH_ROUNDS=7` for a steadier median,
`WAVE_BENCH_INSTRUCTIONS=1` for the same differences in instructions, which a loaded machine does
not move: the times of one request are within the noise of four whole processes).
"""

from __future__ import annotations

import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.bench import instructions
from tests.bench.costs import Cost, alternate, rounds
from tests.model_server import ModelServer, text, tool_call

ROOT = Path(__file__).resolve().parents[2]
FLOOR_BODY = ROOT / "bench" / "floor_body.py"
SCALE = int(os.environ.get("WAVE_BENCH_SCALE", "1000"))
# CI runs each bench once for its shape: one round there (eight processes), three by default.
ROUNDS = rounds(3)
LONG, SHORT = 21, 1  # Reads in the long and the short turn: 22 and 2 requests


def make_project(root: Path, rules: int) -> Path:
    """`rules` rule files (odd ones conditional on a path no Read touches) and LONG files."""
    root.mkdir(parents=True)
    for i in range(LONG):
        (root / f"f{i:02d}.txt").write_text(f"file {i}\n" * 20)
    folder = root / ".wave" / "rules"
    folder.mkdir(parents=True)
    for i in range(rules):
        sub = folder / f"g{i // 100}"
        sub.mkdir(exist_ok=True)
        body = f"---\npaths: pkg{i}/**/*.ts\n---\nRule {i}.\n" if i % 2 else f"Always rule {i}.\n"
        (sub / f"r{i:05d}.md").write_text(body)
    return root


def script_turn(server: ModelServer, reads: int) -> None:
    server.enqueue(*(tool_call("Read", {"file_path": f"f{i:02d}.txt"}) for i in range(reads)))
    server.enqueue(text("OK"))


class Runs:
    """Whole `wave -p` processes: wall time, and the child's user and system CPU (the growth of
    RUSAGE_CHILDREN across one run: the child and whatever it waited for, such as `git`)."""

    def __init__(self, server: ModelServer, env: dict[str, str]) -> None:
        self.server, self.env = server, env
        self.user: dict[str, list[float]] = {}
        self.sys: dict[str, list[float]] = {}

    def measure(self, name: str, cwd: Path, reads: int) -> Callable[[], Cost]:
        self.user[name], self.sys[name] = [], []

        def once() -> Cost:
            self.server.reset()
            script_turn(self.server, reads)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "wave_tui", "-p", "read the files"],
                cwd=cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=300,
            )
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            assert done.returncode == 0, done.stderr.decode()
            assert done.stdout == b"OK\n"
            assert len(self.server.requests) == reads + 1
            user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
            self.user[name].append(user)
            self.sys[name].append(system)
            return Cost(wall, user + system)

        return once

    def median(self, name: str) -> tuple[float, float]:
        return statistics.median(self.user[name]), statistics.median(self.sys[name])


def _sink() -> tuple[socket.socket, threading.Thread]:
    """An HTTP sink on loopback: reads each request's body, answers 200 with nothing; one
    connection after another until its socket is closed."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve_one(conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as reader:
            while True:
                length = 0
                while (line := reader.readline()) not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                if not line:
                    return
                reader.read(length)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            serve_one(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return server, thread


def body_floor(bodies: dict[str, dict[str, Any]], rounds: int) -> dict[str, Cost]:
    """`json.dumps` as httpx encodes a body + its POST over loopback (httpx, one kept
    connection), alternating the bodies; CPU of the sending thread alone."""
    import httpx

    server, thread = _sink()
    host, port = server.getsockname()[:2]
    with httpx.Client(base_url=f"http://{host}:{port}") as client:

        def measure(body: dict[str, Any]) -> Callable[[], Cost]:
            def once() -> Cost:
                wall, cpu = time.perf_counter(), time.thread_time()
                data = json.dumps(
                    body, ensure_ascii=False, separators=(",", ":"), allow_nan=False
                ).encode()
                client.post("/v1/chat/completions", content=data).raise_for_status()
                return Cost(time.perf_counter() - wall, time.thread_time() - cpu)

            return once

        measures = {name: measure(body) for name, body in bodies.items()}
        for once in measures.values():
            once()
        got = alternate(measures, rounds)
    server.close()
    thread.join(5)
    return got


def encode_only(body: dict[str, Any], rounds: int = 20) -> float:
    times = []
    for _ in range(rounds):
        cpu = time.thread_time()
        json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        times.append(time.thread_time() - cpu)
    return statistics.median(times)


def instruction_lines(
    server: ModelServer,
    env: dict[str, str],
    turns: dict[tuple[str, int], tuple[Path, int]],
    bodies: dict[str, dict[str, Any]],
    folder: Path,
) -> list[str]:
    """With WAVE_BENCH_INSTRUCTIONS=1: the same four-way difference in instructions (valgrind),
    and the floor's: `bench/floor_body.py` POSTing each body LONG + 1 and SHORT + 1 times."""
    if not instructions.ENABLED:
        return []
    wave: dict[tuple[str, int], int | None] = {}
    for (project, reads), (cwd, _) in turns.items():
        server.reset()
        script_turn(server, reads)
        cmd = [sys.executable, "-m", "wave_tui", "-p", "read the files"]
        wave[project, reads] = instructions.count_instructions(cmd, cwd, env)
    sink, thread = _sink()
    url = "http://{}:{}/v1/chat/completions".format(*sink.getsockname()[:2])
    floor: dict[tuple[str, int], int | None] = {}
    for name, body in bodies.items():
        (folder / f"{name}.json").write_text(json.dumps(body), encoding="utf-8")
        for reads in (SHORT, LONG):
            cmd = [
                sys.executable,
                str(FLOOR_BODY),
                str(folder / f"{name}.json"),
                url,
                str(reads + 1),
            ]
            floor[name, reads] = instructions.count_instructions(cmd, folder, env)
    sink.close()
    thread.join(5)
    counts = {**wave, **floor}
    if any(c is None for c in counts.values()):
        return ["  (instructions: valgrind not found)"]

    def per_request(got: dict[tuple[str, int], int | None], base: str) -> float:
        n = {key: float(c or 0) for key, c in got.items()}
        rules = n["rules", LONG] - n["rules", SHORT]
        return (rules - n[base, LONG] + n[base, SHORT]) / (LONG - SHORT)

    each, floor_each = per_request(wave, "none"), per_request(floor, "none")
    return [
        f"  instructions: each later request {each / 1e6:.2f} M; floor (encode + POST of the "
        f"bigger body less the smaller) {floor_each / 1e6:.2f} M; ratio {each / floor_each:.2f}x",
        "  instructions per whole turn: "
        + ", ".join(f"{p} {r + 1} requests {(c or 0) / 1e9:.3f} G" for (p, r), c in wave.items()),
    ]


def _encoded(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


@pytest.mark.bench
@pytest.mark.timeout(3600 if instructions.ENABLED else 600)  # valgrind: ~1 min a process
@pytest.mark.req("SP3")
def test_bench_request_cost_of_rules(tmp_path: Path) -> None:
    small = make_project(tmp_path / "none", 0)
    big = make_project(tmp_path / "rules", SCALE)
    with ModelServer(accounting=False) as server:
        env = server.env(PYTHONPATH=str(ROOT), WAVE_DISABLE_AUTO_MEMORY="1")
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode cached
        runs = Runs(server, env)
        turns = {
            (project, reads): (cwd, reads)
            for project, cwd in (("none", small), ("rules", big))
            for reads in (SHORT, LONG)
        }
        measures = {
            f"{p}, {r + 1} requests": runs.measure(f"{p}, {r + 1} requests", cwd, r)
            for (p, r), (cwd, _) in turns.items()
        }
        for once in measures.values():  # warm-up: bytecode written, page cache filled
            once()
        got = alternate(measures, ROUNDS)
        bodies = {"rules": server.requests[-1].body}
        measures[f"none, {LONG + 1} requests"]()
        bodies["none"] = server.requests[-1].body
        counted = instruction_lines(server, env, turns, bodies, tmp_path)
    floor = body_floor(bodies, max(ROUNDS, 10) * 2)
    size = {name: len(_encoded(body)) for name, body in bodies.items()}
    requests = LONG - SHORT

    def pick(project: str, reads: int, of: Callable[[str], float]) -> float:
        return of(f"{project}, {reads + 1} requests")

    def per_request(of: Callable[[str], float]) -> float:
        rules = pick("rules", LONG, of) - pick("rules", SHORT, of)
        return (rules - pick("none", LONG, of) + pick("none", SHORT, of)) / requests

    def user(name: str) -> float:
        return runs.median(name)[0]

    def system(name: str) -> float:
        return runs.median(name)[1]

    def wall(name: str) -> float:
        return got[name].wall

    steady_user, steady_sys, steady_wall = (per_request(of) for of in (user, system, wall))
    whole = {
        of: (pick("rules", LONG, of) - pick("none", LONG, of)) / requests for of in (user, system)
    }
    cold = {of: pick("rules", SHORT, of) - pick("none", SHORT, of) for of in (user, system)}
    floor_cpu = floor["rules"].cpu - floor["none"].cpu
    floor_wall = floor["rules"].wall - floor["none"].wall
    lines = [f"\nwave -p with {SCALE} rules vs none, median of {ROUNDS} rounds:"]
    for name in measures:
        lines.append(
            f"  {name:22} wall {got[name].wall * 1e3:6.0f} ms  user {user(name) * 1e3:5.0f} ms"
            f"  sys {system(name) * 1e3:4.0f} ms"
        )
    steady = steady_user + steady_sys
    lines += [
        f"  each later request: CPU {steady * 1e3:.2f} ms (user {steady_user * 1e3:.2f}, sys "
        f"{steady_sys * 1e3:.2f}), wall {steady_wall * 1e3:.2f} ms",
        f"  floor: encode + POST of the {size['rules'] / 1e3:.0f} kB body less the {size['none'] / 1e3:.0f} kB "
        f"one: CPU {floor_cpu * 1e3:.2f} ms, wall {floor_wall * 1e3:.2f} ms (the big body alone: CPU "
        f"{floor['rules'].cpu * 1e3:.2f} ms, of it encoding {encode_only(bodies['rules']) * 1e3:.2f} ms)",
        f"  each later request beyond the floor: {(steady - floor_cpu) * 1e3:+.2f} ms CPU",
        f"  the first request and first Read (cold: discovery, watches, the matcher): user "
        f"{cold[user] * 1e3:.0f} ms, sys {cold[system] * 1e3:.0f} ms",
        f"  whole long turn / {requests} (cold included): user {whole[user] * 1e3:.2f} ms, sys "
        f"{whole[system] * 1e3:.2f} ms per request",
    ]
    print("\n".join(lines + counted))
