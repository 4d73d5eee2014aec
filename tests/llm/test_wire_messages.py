"""The wire form of a conversation: isMeta text folds, the user's own words never do (CV3, CV5,
PV6), and a strict template gets an assistant bridge instead."""

from __future__ import annotations

import pytest

from wave_tui.llm.types import Message, ToolCall
from wave_tui.llm.wire import BRIDGE_TEXT, JOINS_NEXT, WireHistory, bridge_roles, wire_messages

NOTE = Message.user("[Request interrupted by user]", is_meta=True, **{JOINS_NEXT: True})
RULE = Message.user("<system-reminder>rule: be brief</system-reminder>", is_meta=True)
CALL = Message(role="assistant", tool_calls=[ToolCall(id="c1", name="Read", arguments="{}")])
RESULT = Message(role="tool", content="alpha", tool_call_id="c1", tool_name="Read")


def parts(*texts: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": t} for t in texts]


@pytest.mark.req("PV6")
def test_pv6_the_reminder_and_meta_text_fold_the_prompt_stays_whole() -> None:
    wire = wire_messages([Message.user("hi"), RULE, CALL, RESULT, RULE], "<memory>")
    assert wire == [
        {"role": "user", "content": parts("<memory>", "hi", RULE.content)},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": f"alpha\n\n{RULE.content}"},
    ]


@pytest.mark.req("CV3")
def test_cv3_two_prompts_are_two_messages_the_note_before_the_second() -> None:
    wire = wire_messages([Message.user("abandoned"), NOTE, Message.user("next")], "<memory>")
    assert wire == [
        {"role": "user", "content": parts("<memory>", "abandoned")},
        {"role": "user", "content": parts(NOTE.content, "next")},
    ]


@pytest.mark.req("CV5")
def test_cv5_the_users_words_after_a_tool_result_are_a_user_message() -> None:
    wire = wire_messages([Message.user("read"), CALL, RESULT, Message.user("now this")])
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "user"]
    assert wire[2]["content"] == "alpha" and wire[3]["content"] == "now this"
    bridged = bridge_roles(wire_messages([Message.user("a"), NOTE, Message.user("b")]) + wire)
    assert [m["role"] for m in bridged] == [
        "user", "assistant", "user", "assistant", "user", "assistant", "tool", "assistant", "user"
    ]  # fmt: skip
    assert bridged[1] == bridged[7] == {"role": "assistant", "content": BRIDGE_TEXT}


def _session() -> list[Message]:
    """A history with every fold: prompts, meta text after a prompt and after a tool result,
    the interruption note, several rounds of calls."""
    out: list[Message] = []
    for n in range(6):
        call = Message(
            role="assistant", tool_calls=[ToolCall(id=f"c{n}", name="Read", arguments="{}")]
        )
        result = Message(role="tool", content=f"r{n}", tool_call_id=f"c{n}", tool_name="Read")
        out += [Message.user(f"prompt {n}"), RULE, call, result, RULE]
        if n % 2:
            out += [Message(role="assistant", content=f"answer {n}"), NOTE]
    return out


@pytest.mark.req("SP5")
def test_sp5_a_history_that_grows_is_folded_as_the_whole_would_be() -> None:
    history = WireHistory()
    messages = _session()
    before: list[dict[str, object]] = []
    for n in range(1, len(messages) + 1):
        wire = history.wire(messages[:n], "<memory>")
        assert wire == wire_messages(messages[:n], "<memory>")
        # The prefix is the same dicts as last time (the encoder reuses their bytes); only the
        # last one may have been folded into anew.
        assert all(a is b for a, b in zip(wire[:-1], before[:-1], strict=False))
        before = wire


@pytest.mark.req("SP5")
def test_sp5_a_history_put_in_its_place_or_a_new_reminder_is_folded_afresh() -> None:
    history = WireHistory()
    messages = _session()
    history.wire(messages, "<memory>")
    rewound = [m.model_copy() for m in messages[:7]]  # a rewind: new objects, a shorter list
    assert history.wire(rewound, "<memory>") == wire_messages(rewound, "<memory>")
    assert history.wire(rewound, "<other memory>") == wire_messages(rewound, "<other memory>")
    assert history.wire(rewound, None) == wire_messages(rewound, None)
    edited = [*rewound[:3], Message.user("in place of a message"), *rewound[4:]]
    assert history.wire(edited, None) == wire_messages(edited, None)
