"""The extraction fork through `wave -p`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import parts, texts
from wave_tui.config.paths import WavePaths
from wave_tui.llm.wire import strip_cache_marks

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("S5")


def memory_dir(project: Path) -> Path:
    return WavePaths.for_workdir(project).memory_dir


def caching_settings(home: Path) -> None:
    (home / ".wave").mkdir(exist_ok=True)
    (home / ".wave" / "settings.json").write_text(
        json.dumps({"models": {"test-model": {"capabilities": {"promptCaching": True}}}})
    )


@pytest.mark.req("F1", "F2", "F3", "F4")
def test_fork_request_reuses_the_main_request_byte_for_byte(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """F1, F2, F3, F4: same system, tools, model, message prefix; cached tokens > 0."""
    caching_settings(isolated_home)
    (project / "AGENTS.md").write_text("Project rule: be brief.\n")
    (project / "a.txt").write_text("alpha\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "a.txt"}), text("It says alpha."), when=is_main
    )
    model_server.enqueue(text("Nothing worth saving."), when=is_fork)
    proc = run_wave("-p", "what is in a.txt", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "It says alpha.\n"
    main, fork = model_server.requests[1], model_server.requests[2]
    assert is_main(main.body) and is_fork(fork.body)
    m, f = strip_cache_marks(main.body), strip_cache_marks(fork.body)
    assert f["model"] == m["model"] == "test-model"
    assert f["tools"] == m["tools"]
    assert f["messages"][0] == m["messages"][0]  # same static + dynamic blocks
    assert fork.body["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    n = len(m["messages"])
    assert f["messages"][:n] == m["messages"]  # incl. the memory <system-reminder>
    assert "Project rule: be brief." in parts(f["messages"][1])[0]
    assert f["messages"][n] == {"role": "assistant", "content": "It says alpha."}
    assert f["messages"][n + 1]["role"] == "user" and len(f["messages"]) == n + 2
    assert fork.cached_tokens > 0  # F4
    shared = len(model_server.tokenize(main.body))
    assert fork.cached_tokens >= 0.99 * shared


@pytest.mark.req("F9")
def test_fork_works_with_a_model_that_does_not_cache(
    model_server: ModelServer, project: Path
) -> None:
    """F9: no cache marks, no cache benefit, same behaviour."""
    model_server.caching = False
    model_server.enqueue(text("answer"), when=is_main)
    model_server.enqueue(text("nothing"), when=is_fork)
    assert run_wave("-p", "hi", cwd=project, server=model_server).returncode == 0
    fork = model_server.requests[1]
    assert is_fork(fork.body) and fork.cached_tokens == 0
    assert "cache_control" not in json.dumps(fork.body)


@pytest.mark.req("F12", "F13")
def test_manifest_lines_are_exact_including_a_block_scalar_description(
    model_server: ModelServer, project: Path
) -> None:
    """F12, F13: `- [<type>] <filename> (<ISO timestamp>): <description>`, newest first."""
    mem = memory_dir(project)
    mem.mkdir(parents=True)
    (mem / "older.md").write_text(
        "---\nname: build\ndescription: >-\n  How to build\n  the project\ntype: project\n---\nmake\n"
    )
    (mem / "newer.md").write_text("no frontmatter here\n")
    os.utime(mem / "older.md", (1_700_000_000, 1_700_000_000))
    os.utime(mem / "newer.md", (1_700_000_100, 1_700_000_100))
    model_server.enqueue(text("answer"), when=is_main)
    model_server.enqueue(text("nothing"), when=is_fork)
    assert run_wave("-p", "hi", cwd=project, server=model_server).returncode == 0
    prompt = model_server.requests[1].body["messages"][-1]["content"]
    lines = [line for line in prompt.splitlines() if line.startswith("- [")]
    assert lines[:2] == [
        "- [] newer.md (2023-11-14T22:15:00.000Z): ",
        "- [project] older.md (2023-11-14T22:13:20.000Z): How to build the project",
    ]
    assert str(mem) in prompt


@pytest.mark.req("F5", "F6", "F7", "F8")
def test_fork_writes_inside_the_memory_dir_and_is_refused_outside(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """F5, F6, F7, F8: inside ⇒ written; outside/rm ⇒ refused and the model is told; the
    transcript has nothing of the fork; an audit record says what it did."""
    mem = memory_dir(project)
    outside = project / "escape.md"
    model_server.enqueue(text("Done."), when=is_main)
    model_server.enqueue(
        tool_call("Write", {"file_path": str(outside), "content": "x"}),
        tool_call("Bash", {"command": f"rm -f {project}/keep.txt"}),
        tool_call(
            "Write",
            {
                "file_path": str(mem / "user_role.md"),
                "content": "---\nname: role\ndescription: the user is a data scientist\ntype: user\n---\nData scientist.\n",
            },
        ),
        text("Saved."),
        when=is_fork,
    )
    (project / "keep.txt").write_text("keep\n")
    proc = run_wave("-p", "I am a data scientist", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert not outside.exists() and (project / "keep.txt").exists()
    assert (mem / "user_role.md").read_text().startswith("---\nname: role")
    forks = [r for r in model_server.requests if is_fork(r.body)]
    assert len(forks) == 4
    refusal = forks[1].body["messages"][-1]
    assert refusal["role"] == "tool" and "Refused" in refusal["content"]
    assert str(mem) in refusal["content"]  # says what IS allowed
    assert "Refused" in forks[2].body["messages"][-1]["content"]  # rm refused too
    (transcript,) = (isolated_home / ".wave" / "projects").glob("*/*.jsonl")
    assert "memory extraction" not in transcript.read_text()
    assert [json.loads(x)["role"] for x in transcript.read_text().splitlines()] == [
        "user",
        "assistant",
    ]
    (audit,) = (mem.parent / "extractions").glob("*.json")
    record = json.loads(audit.read_text())
    assert record["writes"] == [str(mem / "user_role.md")]
    assert len(record["refused"]) == 2 and record["turns"] == 4


def test_fork_stops_after_five_model_turns(model_server: ModelServer, project: Path) -> None:
    model_server.enqueue(text("answer"), when=is_main)
    model_server.enqueue(*[tool_call("Glob", {"pattern": "*"}) for _ in range(8)], when=is_fork)
    assert run_wave("-p", "hi", cwd=project, server=model_server).returncode == 0
    assert len([r for r in model_server.requests if is_fork(r.body)]) == 5


@pytest.mark.req("F7")
@pytest.mark.req("FH10")
def test_a_declared_tool_the_fork_may_not_use_is_refused_to_it_and_recorded(
    model_server: ModelServer, project: Path
) -> None:
    """The fork's request declares the main agent's tools (its cached prefix): a call of one
    it may not use is refused as such, not answered as an unknown tool."""
    mem = memory_dir(project)
    model_server.enqueue(text("Done."), when=is_main)
    model_server.enqueue(
        tool_call("Agent", {"description": "x", "prompt": "y", "subagent_type": "general"}),
        text("Saved."),
        when=is_fork,
    )
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    forks = [r for r in model_server.requests if is_fork(r.body)]
    answer = forks[1].body["messages"][-1]["content"]
    assert answer.startswith("Refused: Agent is not available to the memory extraction.")
    assert "Unknown tool" not in answer
    (audit,) = (mem.parent / "extractions").glob("*.json")
    assert [r.split()[0] for r in json.loads(audit.read_text())["refused"]] == ["Agent"]


@pytest.mark.req("S1")
def test_no_fork_when_auto_memory_is_off(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """S1: env off ⇒ no fork; settings file off ⇒ no fork."""
    run_wave("-p", "hi", cwd=project, server=model_server, env={"WAVE_DISABLE_AUTO_MEMORY": "1"})
    (isolated_home / ".wave").mkdir(exist_ok=True)
    (isolated_home / ".wave" / "settings.json").write_text('{"autoMemoryEnabled": false}')
    run_wave("-p", "hi", cwd=project, server=model_server)
    assert len(model_server.requests) == 2
    assert not any(is_fork(r.body) for r in model_server.requests)


@pytest.mark.req("C3")
def test_no_fork_after_the_main_agent_saved_memory_itself(
    model_server: ModelServer, project: Path
) -> None:
    """C3: a successful write inside the memory dir this turn ⇒ that extraction is skipped."""
    mem = memory_dir(project)
    model_server.enqueue(
        tool_call("Write", {"file_path": str(mem / "x.md"), "content": "---\nname: x\n---\n"}),
        text("saved"),
        when=is_main,
    )
    assert run_wave("-p", "remember x", cwd=project, server=model_server).returncode == 0
    assert (mem / "x.md").exists()
    assert not any(is_fork(r.body) for r in model_server.requests)


@pytest.mark.req("C3")
def test_a_refused_memory_write_does_not_skip_extraction(
    model_server: ModelServer, project: Path
) -> None:
    """C3: refused or failed writes do not count as the main agent saving memory."""
    mem = memory_dir(project)
    mem.mkdir(parents=True)
    (mem / "exists.md").write_text("old\n")  # Write without a prior Read is refused by the tool
    model_server.enqueue(
        tool_call("Write", {"file_path": str(mem / "exists.md"), "content": "new"}),
        text("tried"),
        when=is_main,
    )
    model_server.enqueue(text("nothing"), when=is_fork)
    assert run_wave("-p", "x", cwd=project, server=model_server).returncode == 0
    assert (mem / "exists.md").read_text() == "old\n"
    assert any(is_fork(r.body) for r in model_server.requests)


def test_no_fork_after_an_api_error(model_server: ModelServer, project: Path) -> None:
    from tests.model_server import error

    model_server.enqueue(*[error(400, "bad")], when=is_main)
    proc = run_wave("-p", "x", cwd=project, server=model_server)
    assert proc.returncode != 0
    assert not any(is_fork(r.body) for r in model_server.requests)


@pytest.mark.req("S4")
def test_frequency_three_extracts_on_every_third_turn(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """S4 across sessions is per session; within `--continue` runs each process counts anew."""
    (isolated_home / ".wave").mkdir(exist_ok=True)
    (isolated_home / ".wave" / "settings.json").write_text('{"autoMemoryFrequency": 3}')
    run_wave("-p", "hi", cwd=project, server=model_server)
    assert not any(is_fork(r.body) for r in model_server.requests)


@pytest.mark.req("S4")
def test_frequency_counts_across_continued_headless_runs(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """S4 with `wave -p --continue`: every 3rd turn of the session extracts, not never."""
    (isolated_home / ".wave").mkdir(exist_ok=True)
    (isolated_home / ".wave" / "settings.json").write_text('{"autoMemoryFrequency": 3}')
    forks_after: list[int] = []
    for turn in range(7):
        flags = ["--continue"] if turn else []
        assert (
            run_wave("-p", f"turn {turn}", *flags, cwd=project, server=model_server).returncode == 0
        )
        forks_after.append(sum(1 for r in model_server.requests if is_fork(r.body)))
    assert forks_after == [0, 0, 1, 1, 1, 2, 2]


@pytest.mark.req("N7")
def test_a_memory_file_the_fork_rewrote_is_notified_to_the_next_continued_run(
    model_server: ModelServer, project: Path
) -> None:
    """N7 across processes: `wave -p` ends with the fork's write; `--continue` is told."""
    mem = memory_dir(project)
    mem.mkdir(parents=True)
    topic = mem / "topic.md"
    topic.write_text("---\nname: t\ntype: project\n---\nold fact\n")
    model_server.enqueue(tool_call("Read", {"file_path": str(topic)}), text("noted"), when=is_main)
    model_server.enqueue(
        tool_call(
            "Edit",
            {"file_path": str(topic), "old_string": "old fact", "new_string": "new fact from fork"},
        ),
        text("updated"),
        when=is_fork,
    )
    assert run_wave("-p", "read the topic", cwd=project, server=model_server).returncode == 0
    assert "new fact from fork" in topic.read_text()
    model_server.enqueue(text("ok"), when=is_main)
    model_server.enqueue(text("nothing"), when=is_fork)
    assert (
        run_wave("-p", "anything new?", "--continue", cwd=project, server=model_server).returncode
        == 0
    )
    main = [r for r in model_server.requests if is_main(r.body)][-1]
    notices = [t for t in texts(main.body["messages"], "user") if "changed on disk" in t]
    assert len(notices) == 1 and "topic.md" in notices[0] and "new fact from fork" in notices[0]
