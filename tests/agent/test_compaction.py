"""Compaction (seed §9 消息压缩): when to compact, what is kept, the
summary request, context restoration, the circuit breaker, and `compact()` over real HTTP."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.model_server import ModelServer, error, text
from wave_tui.agent.compaction import (
    IMAGE_PLACEHOLDER,
    RESTORATION_HEADING,
    SUMMARY_MAX_TOKENS,
    SUMMARY_SECTIONS,
    CompactionBreaker,
    CompactionError,
    build_summary_request,
    compact,
    estimate_tokens,
    group_rounds,
    make_compress_message,
    recent_read_files,
    restoration_section,
    should_compact,
    split_for_compaction,
    strip_images,
)
from wave_tui.files.read_state import ReadState
from wave_tui.llm.client import ClientConfig, ModelClient
from wave_tui.llm.types import Message, ToolCall, Usage
from wave_tui.llm.wire import message_to_wire


def user(content: str) -> Message:
    return Message.user(content)


def meta(content: str) -> Message:
    return Message.user(content, is_meta=True, ruleId="api.md")


def assistant(content: str = "", *calls: str) -> Message:
    return Message(
        role="assistant",
        content=content,
        tool_calls=[ToolCall(id=c, name="Read", arguments='{"file_path": "a.py"}') for c in calls],
    )


def result(call_id: str, content: str = "file text") -> Message:
    return Message(role="tool", content=content, tool_call_id=call_id, tool_name="Read")


def conversation() -> list[Message]:
    """Two user turns: the first uses a tool and gets a rule injected after the result."""
    return [
        user("fix the bug"),
        assistant("", "c1", "c2"),
        result("c1"),
        result("c2"),
        meta("rule: api.md"),
        assistant("fixed"),
        user("now add tests"),
        assistant("", "c3"),
        result("c3"),
        assistant("done"),
    ]


# -- should_compact -------------------------------------------------------------------------------
def test_should_compact_uses_total_tokens_without_recounting_cache() -> None:
    # Pins seed §9: total_tokens excludes cache reads/writes counted separately.
    usage = Usage(prompt_tokens=900, completion_tokens=50, total_tokens=950, cache_read_tokens=800)
    assert not should_compact(usage, 1000)
    assert should_compact(usage, 900)


def test_should_compact_falls_back_to_prompt_plus_completion() -> None:
    assert should_compact(Usage(prompt_tokens=990, completion_tokens=20), 1000)
    assert not should_compact(Usage(prompt_tokens=980, completion_tokens=20), 1000)
    assert not should_compact(None, 1)


# -- grouping and splitting -----------------------------------------------------------------------
@pytest.mark.req("CP1")
def test_group_rounds_never_splits_a_tool_call_from_its_results_or_the_meta_after_them() -> None:
    """CP1: group rounds never splits a tool call from its results or the meta after them."""
    msgs = conversation()
    rounds = group_rounds(msgs)
    assert rounds == [msgs[0:5], msgs[5:6], msgs[6:9], msgs[9:10]]
    assert [m for r in rounds for m in r] == msgs
    for r in rounds:
        call_ids = {c.id for m in r for c in m.tool_calls}
        result_ids = {m.tool_call_id for m in r if m.role == "tool"}
        assert call_ids == result_ids


@pytest.mark.req("CP1")
def test_split_keeps_the_last_two_rounds_verbatim() -> None:
    """CP1: split keeps the last two rounds verbatim."""
    msgs = conversation()
    to_summarise, kept = split_for_compaction(msgs)
    assert to_summarise == msgs[:6]
    assert kept == msgs[6:]
    assert kept[0].role == "user"  # never starts with an orphan tool result


def test_an_earlier_summary_is_summarised_again_even_when_within_the_kept_rounds() -> None:
    old = make_compress_message("old summary", "")
    msgs = [old, assistant("", "c9"), result("c9"), assistant("ok"), *conversation()[6:]]
    to_summarise, kept = split_for_compaction(msgs)
    assert to_summarise[0] is old
    assert all(m.kind != "compress" for m in kept)

    short = [old, user("hi"), assistant("hello")]
    to_summarise, kept = split_for_compaction(short)
    assert to_summarise == [old]
    assert kept == short[1:]


# -- the summary request --------------------------------------------------------------------------
def test_summary_request_shape() -> None:
    msgs = [user("look at this data:image/png;base64,iVBORw0KGgoAAAANSUhEUg== please")]
    msgs += conversation()[1:6]
    body = build_summary_request("fast", msgs, "focus on the auth module")
    assert body["model"] == "fast"
    assert body["max_tokens"] == SUMMARY_MAX_TOKENS == 8192
    assert body["temperature"] == 0.1
    assert "tools" not in body
    system, request = body["messages"]
    assert system["role"] == "system"
    for name in SUMMARY_SECTIONS:
        assert name in system["content"]
    assert len(SUMMARY_SECTIONS) == 9
    assert request["role"] == "user"
    assert "iVBORw0KGgo" not in request["content"]
    assert IMAGE_PLACEHOLDER in request["content"]
    assert request["content"].rstrip().endswith("focus on the auth module")
    assert "[Tool result: Read]" in request["content"]
    assert "rule: api.md" in request["content"]


def test_image_content_parts_become_placeholders() -> None:
    parts = [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    ]
    assert strip_images(parts) == f"see\n{IMAGE_PLACEHOLDER}"


def test_long_tool_results_are_capped_with_a_marker() -> None:
    body = build_summary_request("fast", [assistant("", "c1"), result("c1", "x" * 50_000)], None)
    content = body["messages"][1]["content"]
    assert len(content) < 10_000
    assert "truncated" in content


def test_compress_block_is_sent_as_a_user_message() -> None:
    wire = message_to_wire(make_compress_message("S", "R"))
    assert wire["role"] == "user"
    assert "S\n\nR" in wire["content"]


# -- restoration ----------------------------------------------------------------------------------
def test_restoration_section_caps_files_and_reports_state(tmp_path: Path) -> None:
    files = [(tmp_path / f"f{i}.py", f"content {i}\n" * (5000 if i == 0 else 1)) for i in range(7)]
    section = restoration_section(files, tmp_path, True, ["bash: npm run dev (running)"])
    assert section.startswith(RESTORATION_HEADING)
    assert f"Working directory: {tmp_path}" in section
    assert "Plan mode: on" in section
    assert "npm run dev" in section
    assert section.count("Recently read file:") == 5  # at most 5 files
    big = section.split("Recently read file:")[1]
    assert estimate_tokens(big) <= 5000 + 50  # ~5,000 tokens per file, plus the marker
    assert "truncated" in big
    quiet = restoration_section([], tmp_path, False, [])
    assert "Plan mode: off" in quiet
    assert "Background work still running: none" in quiet


def test_recent_read_files_newest_full_reads_first(tmp_path: Path) -> None:
    state = ReadState()
    for i in range(7):
        state.record_text(tmp_path / f"f{i}", f"text {i}", 0)
        time.sleep(0.001)
    state.record_text(tmp_path / "partial", "slice", 0, offset=10, limit=5)
    recent = recent_read_files(state)
    assert [p.name for p, _ in recent] == ["f6", "f5", "f4", "f3", "f2"]
    assert recent[0][1] == "text 6"


# -- breaker --------------------------------------------------------------------------------------
@pytest.mark.req("CP4")
def test_breaker_opens_after_three_failures_and_warns_once() -> None:
    """CP4: breaker opens after three failures and warns once."""
    breaker = CompactionBreaker()
    for _ in range(2):
        breaker.record_failure()
        assert not breaker.open
        assert breaker.take_warning() is None
    breaker.record_failure()
    assert breaker.open
    assert breaker.take_warning()
    assert breaker.take_warning() is None


def test_breaker_success_resets() -> None:
    breaker = CompactionBreaker()
    for _ in range(3):
        breaker.record_failure()
    breaker.record_success()
    assert not breaker.open
    assert breaker.failures == 0


# -- compact() over the scripted server -----------------------------------------------------------
async def test_compact_replaces_history_with_summary_and_keeps_last_rounds(
    model_server: ModelServer, tmp_path: Path
) -> None:
    model_server.enqueue(text("1. Primary Request and Intent: fix the bug"))
    client = ModelClient(ClientConfig(base_url=model_server.base_url))
    msgs = conversation()
    try:
        res = await compact(
            client, "fast", msgs, None, [(tmp_path / "a.py", "print(1)")], tmp_path, False, []
        )
    finally:
        await client.aclose()
    compress, *kept = res.new_messages
    assert compress.kind == "compress" and compress.role == "user"
    assert compress.content.startswith("1. Primary Request and Intent: fix the bug")
    assert RESTORATION_HEADING in compress.content and "print(1)" in compress.content
    assert kept == msgs[6:]
    assert res.summary.startswith("1. Primary")
    assert res.usage is not None and res.usage.total_tokens > 0
    sent = model_server.requests[0].body
    assert sent["model"] == "fast" and sent["max_tokens"] == 8192 and "tools" not in sent
    assert "fix the bug" in sent["messages"][1]["content"]


async def test_compact_raises_on_failure(model_server: ModelServer, tmp_path: Path) -> None:
    model_server.enqueue(error(400, "bad request"))
    client = ModelClient(ClientConfig(base_url=model_server.base_url, max_retries=0))
    try:
        with pytest.raises(CompactionError):
            await compact(client, "fast", conversation(), None, [], tmp_path, False, [])
    finally:
        await client.aclose()


async def test_compact_with_too_few_rounds_summarises_everything(
    model_server: ModelServer, tmp_path: Path
) -> None:
    model_server.enqueue(text("summary"))
    client = ModelClient(ClientConfig(base_url=model_server.base_url))
    try:
        res = await compact(
            client, "fast", [user("hi"), assistant("hello")], "short", [], tmp_path, False, []
        )
    finally:
        await client.aclose()
    assert [m.kind for m in res.new_messages] == ["compress"]


async def _read(tool_ctx_root: Path, state: ReadState, name: str, call_id: str) -> list[Message]:
    import asyncio

    from wave_tui.tools.base import ToolContext
    from wave_tui.tools.read import ReadTool

    ctx = ToolContext(workdir=tool_ctx_root, read_state=state, abort=asyncio.Event())
    out = await ReadTool().run({"file_path": str(tool_ctx_root / name)}, ctx)
    call = ToolCall(id=call_id, name="Read", arguments=f'{{"file_path": "{name}"}}')
    return [
        Message(role="assistant", content="", tool_calls=[call]),
        Message(role="tool", content=out.content, tool_call_id=call_id, tool_name="Read"),
    ]


@pytest.mark.req("MX10")
async def test_mx10_restoration_skips_files_the_kept_tail_already_shows(
    model_server: ModelServer, tmp_path: Path
) -> None:
    """Two 1,000-line files were read; the kept rounds still show one: restore only the other."""
    for name in ("old.py", "new.py"):
        (tmp_path / name).write_text("".join(f"{name} line {n}\n" for n in range(1000)))
    state = ReadState()
    msgs = [user("look at old.py"), *await _read(tmp_path, state, "old.py", "r1")]
    msgs += [assistant("seen"), user("and new.py"), *await _read(tmp_path, state, "new.py", "r2")]
    msgs += [assistant("seen too")]
    recent = recent_read_files(state)
    assert {p.name for p, _ in recent} == {"old.py", "new.py"}
    model_server.enqueue(text("summary"))
    client = ModelClient(ClientConfig(base_url=model_server.base_url))
    try:
        res = await compact(client, "fast", msgs, None, recent, tmp_path, False, [], keep_rounds=2)
    finally:
        await client.aclose()
    compress, *kept = res.new_messages
    assert any(m.tool_call_id == "r2" for m in kept) and not any(
        m.tool_call_id == "r1" for m in kept
    )
    assert "Recently read file:" in compress.content and "old.py line 999" in compress.content
    assert "new.py line" not in compress.content  # already in the kept tail, once is enough
    whole = "\n".join(m.content for m in res.new_messages)
    assert sum(1 for line in whole.splitlines() if "line " in line) == 2000


@pytest.mark.req("MX10")
def test_mx10_a_changed_or_partly_read_file_is_still_restored(tmp_path: Path) -> None:
    from wave_tui.agent.compaction import not_in_messages

    (tmp_path / "a.py").write_text("x = 1\n")
    call = ToolCall(id="c", name="Read", arguments='{"file_path": "a.py"}')
    partial = ToolCall(id="p", name="Read", arguments='{"file_path": "a.py", "limit": 1}')
    shown = [
        Message(role="assistant", content="", tool_calls=[call, partial]),
        Message(role="tool", content="     1\tx = 0", tool_call_id="c", tool_name="Read"),
        Message(role="tool", content="     1\tx = 1", tool_call_id="p", tool_name="Read"),
    ]
    recent = [(tmp_path / "a.py", "x = 1\n")]
    assert not_in_messages(recent, shown, tmp_path) == recent  # old content, partial read
    shown[1] = shown[1].model_copy(update={"content": "     1\tx = 1"})
    assert not_in_messages(recent, shown, tmp_path) == []
