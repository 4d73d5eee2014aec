"""A compaction fitted to a budget (CV11): kept rounds, the summary's length, the transcript the
summary model sees and the restoration, each within what a small window leaves."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from wave_tui.agent.compaction import (
    SUMMARY_MAX_TOKENS,
    Budget,
    build_summary_request,
    compact,
    estimate_tokens,
    group_rounds,
    restoration_section,
)
from wave_tui.agent.restoration import KEPT_SHARE, fitting_keep_rounds, wire_tokens
from wave_tui.llm.client import ClientConfig, ModelClient
from wave_tui.llm.types import Message, ToolCall
from wave_tui.llm.usage import estimate_prompt_tokens


def read_round(call_id: str, content: str) -> list[Message]:
    call = ToolCall(id=call_id, name="Read", arguments='{"file_path": "x.txt"}')
    return [
        Message.user(f"read {call_id}"),
        Message(role="assistant", content="", tool_calls=[call]),
        Message(role="tool", content=content, tool_call_id=call_id, tool_name="Read"),
    ]


@pytest.mark.req("CV11")
def test_cv11_the_restoration_fits_its_budget_and_names_what_it_left_out(tmp_path: Path) -> None:
    files = [
        (tmp_path / "big.py", "".join(f"big line {n}\n" for n in range(2000))),
        (tmp_path / "other.py", "".join(f"other line {n}\n" for n in range(2000))),
    ]
    skills = [("review", "REVIEW: read the diff first.\n" * 10)]
    background = ["npm run dev (task b1; its output: /tmp/b1.log, or BashOutput)"]
    section = restoration_section(files, tmp_path, False, background, skills=skills, budget=600)
    assert estimate_tokens(section) <= 600
    assert "Skills invoked in this session: review" in section
    assert "REVIEW: read the diff first." in section
    assert "npm run dev" in section
    assert "Recently read file:" in section and "big line 0" in section
    assert "cut to fit the context window" in section
    assert "other line 0" not in section
    assert section.rstrip().endswith(str(tmp_path / "other.py"))  # named as not restored
    assert "Not restored" in section
    unbounded = restoration_section(files, tmp_path, False, background, skills=skills)
    assert "other line 0" in unbounded and "Not restored" not in unbounded


@pytest.mark.req("CV11")
def test_cv11_a_round_too_big_for_the_room_is_summarised_not_kept() -> None:
    small, big = read_round("a", "short"), read_round("b", "x" * 20_000)
    rounds = group_rounds([*small, *big])
    room = 4000
    assert wire_tokens(big) > room * KEPT_SHARE
    assert fitting_keep_rounds(rounds, 2, room) == 0
    assert fitting_keep_rounds(rounds, 2, 100_000) == 2
    assert fitting_keep_rounds(group_rounds([*big, *small]), 2, room) == 1


@pytest.mark.req("CV11")
def test_cv11_the_summary_transcript_is_cut_to_the_summary_models_window() -> None:
    history = [m for n in range(30) for m in read_round(f"c{n}", f"result {n} " * 2000)]
    full = build_summary_request("fast", history)
    budget = 3000
    assert estimate_prompt_tokens(full) + SUMMARY_MAX_TOKENS > budget
    fitted = build_summary_request("fast", history, max_tokens=1000, budget=budget)
    assert estimate_prompt_tokens(fitted) + 1000 <= budget
    request = fitted["messages"][1]["content"]
    assert "earlier messages left out" in request and "read c29" in request  # the newest stay
    assert "Keep the whole summary under about 750 words." in request


@pytest.mark.req("CV11")
async def test_cv11_compact_with_a_budget_returns_messages_that_fit_it(
    model_server: ModelServer, tmp_path: Path
) -> None:
    history = [*read_round("a", "alpha " * 3000), *read_round("b", "beta " * 3000)]
    files = [(tmp_path / "x.txt", "".join(f"x line {n}\n" for n in range(3000)))]
    model_server.enqueue(text("SUMMARY " * 1000))  # longer than asked: it is cut to fit
    client = ModelClient(ClientConfig(base_url=model_server.base_url))
    try:
        result = await compact(
            client, "fast", history, None, files, tmp_path, False, [], budget=Budget(1500, None)
        )
    finally:
        await client.aclose()
    assert wire_tokens(result.new_messages) <= 1500
    compress = result.new_messages[0].content
    assert compress.startswith("SUMMARY") and "summary cut to fit the context window" in compress
    assert "[Context Restoration]" in compress
    sent = model_server.requests[0].body
    assert sent["max_tokens"] < SUMMARY_MAX_TOKENS
