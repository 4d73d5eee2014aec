"""The one way the fast model is asked for a JSON verdict (rule check, conflicts, consolidation)."""

from __future__ import annotations

from wave_tui.memory import conflicts, consolidation, rule_check
from wave_tui.memory.fast_verdict import json_in, verdict_request


def test_the_json_is_cut_out_of_prose_and_fences() -> None:
    fenced = 'Here it is:\n```json\n{"violations": [{"rule": "r1"}]}\n```\nDone.'
    assert json_in(fenced, "object") == {"violations": [{"rule": "r1"}]}
    assert json_in('Pairs: [{"pair": 1}] that is all', "array") == [{"pair": 1}]


def test_no_json_or_broken_json_is_no_verdict() -> None:
    assert json_in("no verdict at all", "object") is None
    assert json_in("} backwards {", "object") is None
    assert json_in('{"violations": [}', "object") is None
    assert json_in('{"a": 1}', "array") is None


def test_the_three_questions_are_asked_the_same_way() -> None:
    """One body shape: what differs is the system text, the question and the answer's length."""
    asked = [
        rule_check.check_request("fast", [], []),
        conflicts.judge_request("fast", []),
        consolidation.merge_request("fast", [], "- [a](a.md)\n"),
    ]
    systems = [rule_check.CHECK_SYSTEM, conflicts.JUDGE_SYSTEM, consolidation.MERGE_SYSTEM]
    for body, system in zip(asked, systems, strict=True):
        ask = body["messages"][1]["content"]
        assert body == verdict_request("fast", system, ask, body["max_tokens"])
