"""Stream assembly units: `<think>` split across deltas (PV3), tool-call deltas (PV4, PV5, X8)."""

from __future__ import annotations

import json

import pytest

from wave_tui.llm.assembly import ThinkSplitter, ToolCallAssembler, repair_arguments, split_think


def feed_all(pieces: list[str]) -> tuple[str, str]:
    splitter = ThinkSplitter()
    out = [pair for p in pieces for pair in splitter.feed(p)] + splitter.flush()
    return (
        "".join(t for k, t in out if k == "reasoning"),
        "".join(t for k, t in out if k == "text"),
    )


@pytest.mark.req("PV3")
def test_pv3_think_tags_cut_across_deltas_are_recognised() -> None:
    text = "<think>step one, step two</think>\n\nThe answer."
    for size in (1, 2, 3, 5, 8, 100):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        assert feed_all(pieces) == ("step one, step two", "The answer.")


@pytest.mark.req("PV3")
def test_pv3_content_without_think_is_untouched() -> None:
    assert feed_all(["<thin", "king> is a word"]) == ("", "<thinking> is a word")
    assert split_think("  plain answer") == ("", "  plain answer")
    assert split_think("a <think>later</think> tag") == ("", "a <think>later</think> tag")


@pytest.mark.req("PV3")
def test_pv3_an_unclosed_think_is_all_reasoning() -> None:
    assert feed_all(["<think>never", " closed"]) == ("never closed", "")


@pytest.mark.req("PV4")
def test_pv4_deltas_without_index_continue_the_last_call() -> None:
    calls = ToolCallAssembler()
    calls.add({"id": "c1", "function": {"name": "Read", "arguments": '{"file_'}})
    calls.add({"function": {"arguments": 'path": "a"}'}})
    calls.add({"id": "c2", "function": {"name": "Grep", "arguments": '{"pattern": "x"}'}})
    out = calls.calls()
    assert [(c.id, c.name) for c in out] == [("c1", "Read"), ("c2", "Grep")]
    assert json.loads(out[0].arguments) == {"file_path": "a"}


@pytest.mark.req("PV4")
def test_pv4_a_name_repeated_in_every_delta_is_set_once() -> None:
    calls = ToolCallAssembler()
    for piece in ('{"a"', ": 1", "}"):
        calls.add({"index": 0, "id": "c1", "function": {"name": "Read", "arguments": piece}})
    (call,) = calls.calls()
    assert call.name == "Read" and call.arguments == '{"a": 1}'


@pytest.mark.req("PV5")
def test_pv5_broken_json_is_repaired_or_kept_for_a_clear_tool_error() -> None:
    assert json.loads(repair_arguments('{"file_path": "a.txt"')) == {"file_path": "a.txt"}
    assert repair_arguments("not json at all") == "not json at all"
    assert repair_arguments("") == "{}"


@pytest.mark.req("X8")
def test_x8_eight_megabytes_of_fragments_assemble_in_one_join() -> None:
    calls = ToolCallAssembler()
    payload = json.dumps({"content": "y" * (8 * 1024 * 1024)})
    for i in range(0, len(payload), 64):
        calls.add({"index": 0, "function": {"arguments": payload[i : i + 64]}})
    assert calls.calls()[0].arguments == payload
