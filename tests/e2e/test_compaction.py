"""Compaction through `wave -p` with a small WAVE_MAX_INPUT_TOKENS and a distinct fast model:
summary request, kept rounds, restoration, rules re-armed, breaker, session chain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, error, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import flat

# A window the compacted request fits (CV11: the last two rounds, a big read among them, and an
# 8,192-token summary, with room for the reply) that the turn still outgrows at its third read.
ENV = {"WAVE_MAX_INPUT_TOKENS": "30000", "WAVE_FAST_MODEL": "fast", "WAVE_DISABLE_AUTO_MEMORY": "1"}


def is_fast(body: dict) -> bool:
    return body["model"] == "fast"


def is_main(body: dict) -> bool:
    return body["model"] != "fast"


def big(path: Path, words: int = 3000) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(" ".join(["word"] * 30) for _ in range(words // 30)) + "\n")


def orphan_tool_results(messages: list[dict]) -> list[str]:
    seen: set[str] = set()
    orphans = []
    for m in messages:
        for call in m.get("tool_calls") or []:
            seen.add(call["id"])
        if m["role"] == "tool" and m["tool_call_id"] not in seen:
            orphans.append(m["tool_call_id"])
    return orphans


@pytest.fixture
def long_session(model_server: ModelServer, project: Path) -> Path:
    (project / ".wave" / "rules").mkdir(parents=True)
    (project / ".wave" / "rules" / "api.md").write_text("---\npaths: src/api/**\n---\nAPI-RULE\n")
    big(project / "src" / "api" / "a.ts", words=20_000)
    big(project / "b.txt")
    (project / "c.txt").write_text("small c\n")
    (project / "src" / "api" / "d.ts").write_text("small d\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "src/api/a.ts"}),
        tool_call("Read", {"file_path": "b.txt"}),
        tool_call("Read", {"file_path": "c.txt"}),
        tool_call("Read", {"file_path": "src/api/d.ts"}),
        text("all done"),
        when=is_main,
    )
    model_server.enqueue(text("SUMMARY-ONE"), text("SUMMARY-TWO"), when=is_fast)
    return project


@pytest.mark.req("CP1")
def test_a_long_turn_is_compacted_by_the_fast_model_and_keeps_working(
    model_server: ModelServer, long_session: Path, isolated_home: Path
) -> None:
    """CP1: a long turn is compacted by the fast model and keeps working."""
    proc = run_wave("-p", "read everything", cwd=long_session, server=model_server, env=ENV)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "all done\n"
    fast = [r for r in model_server.requests if is_fast(r.body)]
    assert len(fast) >= 1
    assert fast[0].body["max_tokens"] == 8192 and fast[0].body["temperature"] == 0.1
    assert "tools" not in fast[0].body
    prompt = json.dumps(fast[0].body)
    for section in ("Primary Request and Intent", "Pending Tasks", "Optional Next Step"):
        assert section in prompt
    mains = [r for r in model_server.requests if is_main(r.body)]
    after = next(r for r in mains if "SUMMARY-ONE" in json.dumps(r.body))
    messages = after.body["messages"]
    summary = messages[1]
    assert summary["role"] == "user" and "SUMMARY-ONE" in summary["content"]
    assert "[Context Restoration]" in summary["content"]
    assert str(long_session) in summary["content"]  # the working directory
    # the last two rounds are verbatim: Read b.txt and Read c.txt with their results
    calls = [c["function"]["arguments"] for m in messages for c in m.get("tool_calls") or []]
    assert any("b.txt" in c for c in calls) and any("c.txt" in c for c in calls)
    assert not any("a.ts" in c for c in calls)
    assert orphan_tool_results(messages) == []
    # the conditional rule's message was summarised away, so the next matching Read re-arms it
    final = flat(mains[-1].body["messages"])  # folded isMeta messages as their own items
    rule_positions = [i for i, (_, t) in enumerate(final) if t.startswith("<!-- rule: api.md")]
    assert rule_positions, "the rule fired again after compaction"
    d_result = next(i for i, (role, t) in enumerate(final) if role == "tool" and "small d" in t)
    assert rule_positions[-1] > d_result


@pytest.mark.req("CP2")
def test_compaction_starts_a_linked_session_and_continue_follows_it(
    model_server: ModelServer, long_session: Path, isolated_home: Path
) -> None:
    """CP2: compaction starts a linked session and continue follows it."""
    assert run_wave("-p", "go", cwd=long_session, server=model_server, env=ENV).returncode == 0
    files = list((isolated_home / ".wave" / "projects").glob("*/*.jsonl"))
    assert len(files) >= 2
    firsts = {f.stem: json.loads(f.read_text().splitlines()[0]) for f in files}
    children = {k: v for k, v in firsts.items() if v.get("meta", {}).get("parentSessionId")}
    assert children and all(v["kind"] == "compress" for v in children.values())
    model_server.enqueue(text("continued"), when=is_main)
    proc = run_wave("-p", "and now?", "--continue", cwd=long_session, server=model_server, env=ENV)
    assert proc.returncode == 0, proc.stderr
    last = [r for r in model_server.requests if is_main(r.body)][-1].body["messages"]
    assert "SUMMARY" in json.dumps(last)  # continued from the compacted session
    assert last[-1]["content"] == "and now?" or "and now?" in json.dumps(last[-3:])


@pytest.mark.req("CP4", "CV11")
def test_three_failed_compactions_open_the_breaker_and_the_turn_completes(
    model_server: ModelServer, project: Path
) -> None:
    """CP4: three failed compactions open the breaker and the turn completes."""
    big(project / "v.txt", words=4000)  # from the second request on, over the window
    for name in "wxyz":
        (project / f"{name}.txt").write_text(f"{name}\n")
    model_server.enqueue(
        *[tool_call("Read", {"file_path": f"{n}.txt"}) for n in "vwxyz"],
        text("finished anyway"),
        when=is_main,
    )
    model_server.enqueue(*[error(400, "summariser broken")] * 10, when=is_fast)
    # Room for a compaction (CV11: a window the instructions alone fill is not compacted at all).
    env = {**ENV, "WAVE_MAX_INPUT_TOKENS": "9000"}
    proc = run_wave("-p", "go", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "finished anyway\n"
    assert len([r for r in model_server.requests if is_fast(r.body)]) == 3
    assert proc.stderr.count("paused") == 1


@pytest.mark.req("CP5")
def test_manual_compact_with_instructions(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """CP5: manual compact with instructions."""
    model_server.enqueue(text("first answer"), text("second answer"), when=is_main)
    run_wave("-p", "first question", cwd=project, server=model_server, env=ENV)
    run_wave("-p", "second question", "--continue", cwd=project, server=model_server, env=ENV)
    model_server.enqueue(text("MANUAL-SUMMARY"), when=is_fast)
    proc = run_wave(
        "-p",
        "/compact focus on the questions",
        "--continue",
        cwd=project,
        server=model_server,
        env=ENV,
    )
    assert proc.returncode == 0, proc.stderr
    fast = [r for r in model_server.requests if is_fast(r.body)]
    assert len(fast) == 1 and "focus on the questions" in json.dumps(fast[0].body)
    assert len(list((isolated_home / ".wave" / "projects").glob("*/*.jsonl"))) == 2
