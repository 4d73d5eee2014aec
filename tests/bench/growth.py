"""What the growth benchmarks share: the sizes, a transcript of N turns, and the figures file.

CI runs the small sizes only; `WAVE_BENCH_GROWTH=full` runs all four (and the 10k / 100k trees).
`WAVE_BENCH_GROWTH_OUT=docs/growth.json` keeps every figure printed, for `bench/growth_plot.py`.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

from wave_tui.config.paths import WavePaths
from wave_tui.llm.types import Message, ToolCall

FULL = os.environ.get("WAVE_BENCH_GROWTH") == "full"
TURNS = (10, 100, 1_000, 5_000) if FULL else (10, 100)
FILES = (1_000, 10_000, 100_000) if FULL else (1_000,)
OUT = os.environ.get("WAVE_BENCH_GROWTH_OUT")
PROMPT = "turn {i}: what does f{i}.py do, and is it still used? "
# A window no conversation here reaches: these benchmarks measure growth, not compaction.
NO_COMPACTION = {"WAVE_MAX_INPUT_TOKENS": "1000000000"}


def turn_messages(i: int) -> list[Message]:
    """One turn as a coding session has it: the prompt, a Read, its ~1 KB result, the answer."""
    call = f"call_{i}"
    arguments = json.dumps({"file_path": f"/src/f{i}.py"})
    return [
        Message.user(PROMPT.format(i=i)),
        Message(role="assistant", tool_calls=[ToolCall(id=call, name="Read", arguments=arguments)]),
        Message(
            role="tool",
            content="".join(
                f"{n:6}\tdef handler_{i}_{n}(request): return None\n" for n in range(20)
            ),
            tool_call_id=call,
            tool_name="Read",
        ),
        Message(role="assistant", content=f"f{i}.py routes requests to its handlers. " * 5),
    ]


def write_transcript(workdir: Path, turns: int) -> Path:
    """A session of `turns` turns in `workdir`'s project folder (the one `--continue` finds)."""
    path = WavePaths.for_workdir(workdir).transcript(str(uuid.uuid4()))
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(turns):
            fh.writelines(m.to_json_line() + "\n" for m in turn_messages(i))
    return path


def prompts_in(body: dict[str, Any]) -> int:
    """How many of the transcript's prompts a request body holds."""
    return sum(
        1
        for m in body["messages"]
        if m.get("role") == "user"
        and isinstance(m.get("content"), str)
        and m["content"].startswith("turn ")
    )


def keep(bench: str, size: int, **figures: float) -> None:
    """One row of figures (seconds, bytes, ratios) into the figures file, when one is named."""
    if OUT is None:
        return
    path = Path(OUT)
    data: dict[str, dict[str, dict[str, float]]] = (
        json.loads(path.read_text()) if path.exists() else {}
    )
    data.setdefault(bench, {})[str(size)] = {k: round(v, 6) for k, v in figures.items()}
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
