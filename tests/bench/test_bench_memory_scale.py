"""Memory work per request at scale, with its floors from the same run.

Scene: N rules (half with `paths`), N tracked (fully read) files, a 200-line MEMORY.md among
them, three AGENTS.md on the chain from the repository top to the project root. Printed:
- steady request (nothing changed): reminder + change detection, served from the inotify watch;
- the same with the stat walk (what every request cost before; inotify off);
- one `os.stat` per rule file and tracked file (the floor any polling design pays);
- encode + send of the request's reminder over loopback (what the bigger request costs anyway);
- cold first request (new session: every rule parsed, every folder watched), and its floor: one
  `os.stat` + read of every rule file and one `os.stat` of every tracked file; with the garbage
  collections that ran during it (a collection of the whole heap costs ~100 ms in this process,
  whatever triggers it: the objects the request makes only decide how soon it comes).
Run: `pytest tests/bench/test_bench_memory_scale.py -s` (`WAVE_BENCH_SCALE=10000` for 10k).
"""

from __future__ import annotations

import gc
import json
import os
import socket
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from wave_tui.config import dir_watch as watch
from wave_tui.config.paths import WavePaths
from wave_tui.files.read_state import ReadState
from wave_tui.memory.changes import ChangeDetector
from wave_tui.memory.injection import MemoryInjector

SCALE = int(os.environ.get("WAVE_BENCH_SCALE", "1000"))
REPEAT = 50


def _median_ms(fn: Callable[[], object], repeat: int = REPEAT) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def _scene(top: Path, n: int) -> tuple[Path, ReadState, list[Path]]:
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    project = top / "a" / "b"
    project.mkdir(parents=True)
    for folder in (top, top / "a", project):
        (folder / "AGENTS.md").write_text(f"Notes for {folder.name}.\n" * 5)
    rules = project / ".wave" / "rules"
    rules.mkdir(parents=True)
    rule_files = []
    for i in range(n):
        sub = rules / f"g{i // 100}"
        sub.mkdir(exist_ok=True)
        body = f"---\npaths: pkg{i}/**/*.ts\n---\nRule {i}.\n" if i % 2 else f"Always rule {i}.\n"
        (sub / f"r{i:05d}.md").write_text(body)
        rule_files.append(sub / f"r{i:05d}.md")
    state = ReadState()
    src = project / "src"
    tracked = [project / "MEMORY.md"]
    tracked[0].write_text("".join(f"- [note {i}](n{i}.md): a fact\n" for i in range(200)))
    for i in range(n - 1):
        folder = src / f"m{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        tracked.append(folder / f"f{i:05d}.py")
        tracked[-1].write_text(f"value = {i}\n")
    for path in tracked:
        state.record_text(path, path.read_text(), path.stat().st_mtime_ns)
    return project, state, rule_files + tracked


def _send_floor_ms(payload: bytes) -> float:
    """json-encode a body holding `payload` and send it over loopback to a reading sink."""
    server = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def sink() -> None:
        conn, _ = server.accept()
        with conn:
            while conn.recv(1 << 20):
                pass
        done.set()

    thread = threading.Thread(target=sink, daemon=True)
    thread.start()
    client = socket.create_connection(server.getsockname())
    text = payload.decode()
    body = {"model": "m", "messages": [{"role": "user", "content": text}]}
    ms = _median_ms(lambda: client.sendall(json.dumps(body, ensure_ascii=False).encode()), 20)
    client.close()
    done.wait(5)
    server.close()
    return ms


@pytest.mark.bench
def test_bench_memory_per_request_at_scale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, state, files = _scene(tmp_path / "repo", SCALE)
    paths = WavePaths.for_workdir(project)

    collections: list[int] = []  # the generation of each collection during the cold request

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    started = time.perf_counter()
    injector, detector = MemoryInjector(paths), ChangeDetector()
    reminder = injector.reminder_text()
    detector.detect(state)
    cold_ms = (time.perf_counter() - started) * 1e3
    gc.callbacks.remove(count)
    assert reminder is not None and f"Always rule {SCALE - 2}." in reminder

    def request() -> None:
        injector.reminder_text()
        assert not detector.detect(state)

    request()  # the verifying build after the first watch
    steady_ms = _median_ms(request)
    stat_floor_ms = _median_ms(lambda: [os.stat(f) for f in files], 20)
    rule_names, tracked_names = [str(f) for f in files[:SCALE]], [str(f) for f in files[SCALE:]]

    def stat_and_read() -> None:
        for name in rule_names:
            os.stat(name)
            with open(name, "rb") as fh:
                fh.read()
        for name in tracked_names:
            os.stat(name)

    cold_floor_ms = _median_ms(stat_and_read, 5)
    send_ms = _send_floor_ms(reminder.encode())

    monkeypatch.setattr(watch, "_libc", lambda: None)
    walk_injector, walk_detector = MemoryInjector(paths), ChangeDetector()
    walk_injector.reminder_text()
    walk_detector.detect(state)

    def walked() -> None:
        walk_injector.reminder_text()
        walk_detector.detect(state)

    walk_ms = _median_ms(walked, 10)
    print(
        f"\nmemory per request at {SCALE} rules + {SCALE} tracked files: "
        f"watched {steady_ms:.3f} ms; stat walk {walk_ms:.2f} ms; "
        f"stat floor {stat_floor_ms:.2f} ms (ratio watched/floor {steady_ms / stat_floor_ms:.3f}); "
        f"encode+send of the {len(reminder) / 1e3:.0f} kB reminder {send_ms:.2f} ms; "
        f"cold first request {cold_ms:.0f} ms (floor: stat + read {cold_floor_ms:.0f} ms; "
        f"ratio {cold_ms / cold_floor_ms:.1f}x; {len(collections)} collections, "
        f"{collections.count(2)} of the whole heap)"
    )
    injector.close()
    detector.close()
