"""The extraction scheduler and fork isolation through the service (C1, C2, C4, S2, S3, F10, F11, N7)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text, tool_call
from wave_tui.agent.service import AgentService
from wave_tui.features.memory.extraction import ExtractionHook


def extraction(service: AgentService) -> ExtractionHook:
    return service.extensions.of_type(ExtractionHook)


def fork_requests(server: ModelServer) -> list:
    return [r for r in server.requests if is_fork(r.body)]


@pytest.mark.req("C1", "C2")
async def test_slow_fork_and_two_turn_ends_give_exactly_one_trailing_run(
    service_for, model_server: ModelServer
) -> None:
    """C1 + C2: no concurrent fork; the skipped one runs once afterwards."""
    model_server.enqueue(
        text("slow nothing " * 20, delay=0.02), text("second"), text("third"), when=is_fork
    )
    service = service_for()
    await service.run_turn("one")
    assert extraction(service).running
    await service.run_turn("two")  # ends while the first fork runs ⇒ owed
    await service.run_turn("three")  # owed already: still one trailing run
    await extraction(service).wait()
    await asyncio.sleep(0)
    await extraction(service).wait()
    assert len(fork_requests(model_server)) == 2
    # the trailing run works on the newest history
    assert "three" in json.dumps(fork_requests(model_server)[1].body["messages"])
    await service.destroy()


@pytest.mark.req("C4")
async def test_destroy_awaits_the_fork_in_flight(
    service_for, model_server: ModelServer, project: Path
) -> None:
    """C4: writes are never cut off by exit."""
    service = service_for()
    target = service.paths.memory_dir / "late.md"
    model_server.enqueue(
        text("thinking " * 30, delay=0.02).with_options(),
        when=lambda b: is_fork(b) and "late" not in json.dumps(b),
    )
    model_server.enqueue(
        tool_call("Write", {"file_path": str(target), "content": "---\nname: late\n---\n"}),
        text("saved"),
        when=is_fork,
    )
    await service.run_turn("hi")
    await service.destroy()
    assert not extraction(service).running
    forks = fork_requests(model_server)
    assert forks, "the fork ran"


@pytest.mark.req("S2")
async def test_turning_auto_memory_off_lets_the_running_fork_finish_but_starts_no_new_one(
    service_for, model_server: ModelServer, isolated_home: Path
) -> None:
    """S2: an in-flight fork finishes its writes; no new fork after the switch is saved."""
    service = service_for()
    target = service.paths.memory_dir / "kept.md"
    model_server.enqueue(
        tool_call(
            "Write", {"file_path": str(target), "content": "---\nname: k\n---\n"}, delay=0.05
        ),
        text("saved"),
        when=is_fork,
    )
    await service.run_turn("one")
    settings = isolated_home / ".wave" / "settings.json"
    settings.write_text('{"autoMemoryEnabled": false}')
    os.utime(settings, (1e9, 2e9))
    await extraction(service).wait()
    assert target.exists()  # the in-flight fork finished its write
    await service.run_turn("two")
    await extraction(service).wait()
    assert len(fork_requests(model_server)) == 2  # the first fork's two turns, nothing more
    await service.destroy()


@pytest.mark.req("S3", "S4")
async def test_re_enabling_restarts_the_count(
    service_for, model_server: ModelServer, isolated_home: Path
) -> None:
    """S3, S4: frequency 2; turns while off don't count; the count restarts when re-enabled."""
    settings = isolated_home / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)

    def save(data: dict, stamp: float) -> None:
        settings.write_text(json.dumps(data))
        os.utime(settings, (stamp, stamp))

    save({"autoMemoryFrequency": 2}, 1e9)
    service = service_for()
    await service.run_turn("1")
    save({"autoMemoryFrequency": 2, "autoMemoryEnabled": False}, 1e9 + 10)
    await service.run_turn("2 (off)")
    await service.run_turn("3 (off)")
    save({"autoMemoryFrequency": 2, "autoMemoryEnabled": True}, 1e9 + 20)
    await service.run_turn("4")  # first turn after re-enabling: 1 of 2
    await extraction(service).wait()
    assert fork_requests(model_server) == []
    await service.run_turn("5")  # 2 of 2 ⇒ due
    await extraction(service).wait()
    assert len(fork_requests(model_server)) == 1
    await service.destroy()


@pytest.mark.req("F10", "F11", "N7")
async def test_fork_starts_from_a_clone_of_the_read_state_and_never_writes_back(
    service_for, model_server: ModelServer
) -> None:
    """F10, F11, N7: the fork can Edit a memory file the main agent read without reading it;
    its read state stays its own; the main agent is then told the file changed."""
    service = service_for()
    mem = service.paths.memory_dir
    note = mem / "notes.md"
    note.write_text("---\nname: notes\ntype: project\n---\nold fact\n")
    other = service.paths.project_root / "other.txt"
    other.write_text("other\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": str(note)}),
        text("read it"),
        text("next turn"),
        when=is_main,
    )
    model_server.enqueue(
        tool_call(
            "Edit", {"file_path": str(note), "old_string": "old fact", "new_string": "new fact"}
        ),
        tool_call("Read", {"file_path": str(other)}),
        text("done"),
        when=is_fork,
    )
    await service.run_turn("read the notes")
    await extraction(service).wait()
    assert "new fact" in note.read_text()  # Edit without a Read inside the fork: F10
    assert service.read_state.get(other.resolve()) is None  # F11
    await service.run_turn("anything new?")
    last_main = [r for r in model_server.requests if is_main(r.body)][-1]
    notice = json.dumps(last_main.body["messages"])
    assert "changed on disk" in notice and "new fact" in notice  # N7
    await service.destroy()


@pytest.mark.req("F4")
async def test_fork_usage_is_emitted_with_cache_tokens(
    service_for, model_server: ModelServer
) -> None:
    """F4 + item 7: the fork's usage reaches the UI as an event."""
    from wave_tui.agent import events as ev

    service = service_for()
    seen: list[ev.UsageUpdated] = []
    service.subscribe(lambda e: seen.append(e) if isinstance(e, ev.UsageUpdated) else None)
    await service.run_turn("hi")
    await extraction(service).wait()
    fork_usage = [e for e in seen if e.source == "fork"]
    assert fork_usage and fork_usage[0].usage.cache_read_tokens > 0
    await service.destroy()


@pytest.mark.req("N7")
async def test_memory_index_rewritten_by_the_fork_is_notified_to_the_main_agent(
    service_for, model_server: ModelServer
) -> None:
    """N7: MEMORY.md as loaded into the system prompt counts as read; the prompt stays put."""
    service = service_for()
    index = service.paths.memory_index
    model_server.enqueue(text("first"), text("second"), when=is_main)
    model_server.enqueue(
        tool_call("Write", {"file_path": str(index), "content": "- [Tea](tea.md) — likes tea\n"}),
        text("saved"),
        when=is_fork,
    )
    await service.run_turn("I like tea")
    await extraction(service).wait()
    await service.run_turn("what do you know?")
    last_main = [r for r in model_server.requests if is_main(r.body)][-1]
    body = json.dumps(last_main.body["messages"][1:])
    assert "MEMORY.md" in body and "likes tea" in body and "changed on disk" in body
    first_main = next(r for r in model_server.requests if is_main(r.body))
    assert last_main.body["messages"][0] == first_main.body["messages"][0]  # cache-stable
    await service.destroy()


@pytest.mark.req("A2")
async def test_writing_memory_md_over_a_cap_succeeds_and_tells_the_model(
    service_for, model_server: ModelServer
) -> None:
    """A2 at write time: the write goes through, the tool result names the cap."""
    service = service_for(WAVE_DISABLE_AUTO_MEMORY="0")
    index = service.paths.memory_index
    big = "".join(f"- entry {i}\n" for i in range(230))
    model_server.enqueue(
        tool_call("Write", {"file_path": str(index), "content": big}), text("ok"), when=is_main
    )
    await service.run_turn("save lots")
    assert index.read_text() == big
    result = [r for r in model_server.requests if is_main(r.body)][1].body["messages"][-1]
    assert result["role"] == "tool" and "200" in result["content"]
    await service.destroy()


@pytest.mark.req("C3")
async def test_a_memory_write_only_skips_the_extraction_of_its_own_turn(
    service_for, model_server: ModelServer, isolated_home: Path
) -> None:
    """C3 is per turn (seed: 本轮): frequency 2, memory written in turn 1 ⇒ turn 2 still extracts."""
    settings = isolated_home / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"autoMemoryFrequency": 2}')
    service = service_for()
    note = service.paths.memory_dir / "n.md"
    model_server.enqueue(
        tool_call("Write", {"file_path": str(note), "content": "---\nname: n\n---\n"}),
        text("saved"),
        text("two"),
        text("three"),
        text("four"),
        when=is_main,
    )
    for turn in ("1", "2", "3", "4"):
        await service.run_turn(turn)
        await extraction(service).wait()
    assert len(fork_requests(model_server)) == 2  # after turns 2 and 4
    await service.destroy()


async def test_clear_and_compact_are_not_turns_and_never_re_extract_the_old_conversation(
    service_for, model_server: ModelServer
) -> None:
    service = service_for()
    await service.run_turn("old conversation")
    await extraction(service).wait()
    assert len(fork_requests(model_server)) == 1
    await service.run_turn("/clear")
    await extraction(service).wait()
    assert len(fork_requests(model_server)) == 1
    await service.destroy()


@pytest.mark.req("P8", "P9")
async def test_p8_p9_fork_request_carries_the_typology_once(
    service_for, model_server: ModelServer
) -> None:
    """Issue 20 item 7: the typology rides in the shared (cached) system prompt only; the fork's
    own prompt refers to it instead of repeating ~1,300 tokens."""
    from wave_tui.memory.prompts import FRONTMATTER_TEMPLATE, TYPOLOGY_IN_PREFIX, render_typology

    service = service_for()
    await service.run_turn("I am a Go developer")
    await extraction(service).wait()
    fork = fork_requests(model_server)[0].body
    texts = [str(m.get("content")) for m in fork["messages"]]
    assert sum(render_typology() in t for t in texts) == 1
    assert render_typology() in texts[0]  # in the system prompt, the cached prefix
    assert TYPOLOGY_IN_PREFIX in texts[-1] and FRONTMATTER_TEMPLATE not in texts[-1]
    await service.destroy()


@pytest.mark.req("F3")
async def test_the_fork_shares_the_main_requests_messages_and_changes_none_of_them(
    service_for, model_server: ModelServer
) -> None:
    """The fork sends the main request's wire messages as they are (no copy per fork): that is
    safe only while nothing changes one in place — not the fork's cache mark, not its tool
    round, not the next main request's adapter or fold."""
    import copy

    model_server.enqueue(
        text("noted"),
        tool_call("Write", {"file_path": "note.md", "content": "x"}, id="w1"),
        text("saved"),
        when=None,
    )
    service = service_for()
    await service.run_turn("remember that tests run with -n 2")
    sent = service.last_request
    assert sent is not None
    before = copy.deepcopy(sent["messages"])
    await extraction(service).wait()
    await service.run_turn("and a second turn")
    await extraction(service).wait()
    assert fork_requests(model_server), "no fork ran"
    assert sent["messages"] == before
