"""`wave -p` on a small window (CV11): a 9,000-token vLLM server and a big file just read.

The refusal teaches the window; compaction fits the next request to it (the big file restored
only in part, and said so); one new session, not one per attempt; a window that cannot be met
stops after two attempts with one line saying what to do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.providers import providers
from tests.providers.emulator import Call, Emulator, Seen, call, running, say
from tests.wave_cli import run_wave

WINDOW = 9000
ENV = {"WAVE_DISABLE_AUTO_MEMORY": "1"}


def big_file(project: Path) -> Path:
    path = project / "big.txt"
    path.write_text("".join(f"line {i} of the big file, with a few words\n" for i in range(400)))
    return path


def sessions(home: Path) -> list[Path]:
    return sorted((home / ".wave" / "projects").glob("*/*.jsonl"))


def is_summary(seen: Seen) -> bool:
    return not seen.body.get("tools")


def fits(seen: Seen) -> bool:
    asked = int(seen.body.get("max_tokens") or seen.body.get("max_completion_tokens") or 0)
    return providers.vllm_prompt_tokens(seen) + asked <= WINDOW


@pytest.mark.req("CV11")
def test_cv11_a_big_read_on_a_9000_token_window_is_compacted_to_fit(
    project: Path, isolated_home: Path
) -> None:
    big = big_file(project)
    with running(providers.vllm(window=WINDOW)) as em:
        em.script(
            call(Call("Read", {"file_path": "big.txt"}, id="call_big")),
            say("The summary: the user asked to read big.txt; it was read."),
            say("Read it: 400 numbered lines."),
        )
        proc = run_wave("-p", "read big.txt", cwd=project, env=em.env(**ENV))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Read it: 400 numbered lines.\n"
    assert len(em.rejected) == 1  # the request carrying the whole file; nothing after it
    chats = em.chats()
    refused = next(i for i, c in enumerate(chats) if not fits(c))
    assert all(fits(c) for c in chats[refused + 1 :])
    summary = next(c for c in chats[refused + 1 :] if is_summary(c))
    retry = chats[-1]
    compress = retry.messages[1]["content"]
    assert "The summary: the user asked to read big.txt" in compress
    assert "[Context Restoration]" in compress
    assert f"Recently read file: {big}" in compress
    assert "cut to fit the context window" in compress  # the restoration says it was cut
    assert "line 0 of the big file" in compress and "line 399 of" not in compress
    assert summary.body["max_tokens"] < 8192  # a summary sized to the room left
    assert len(sessions(isolated_home)) == 2  # the first session and one compacted one


def always_too_big() -> Emulator:
    """9,000 tokens stated, but counted so densely (2.5 tokens per emulated one) that even the
    instructions and tools alone overflow it: no compaction can make a request fit."""
    return Emulator(rules=[providers.dense_window_of(WINDOW, density=2.5)])


@pytest.mark.req("CV11")
def test_cv11_two_failed_compactions_stop_with_one_line_and_no_new_session(
    project: Path, isolated_home: Path
) -> None:
    with running(always_too_big()) as em:
        em.script(say("First summary."), say("Second summary."), say("never used"))
        proc = run_wave("-p", "hello", cwd=project, env=em.env(**ENV))
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert "/clear" in lines[0] and "larger window" in lines[0] and "9,000-token" in lines[0]
    assert "Traceback" not in proc.stderr
    summaries = [c for c in em.chats() if is_summary(c)]
    assert len(summaries) == 2  # two attempts, then it stops
    assert len(em.rejected) == 3  # the prompt, and the request each attempt made
    assert len(sessions(isolated_home)) == 1  # failed attempts left no session behind
    transcript = sessions(isolated_home)[0].read_text()
    assert "First summary." not in transcript and "Second summary." not in transcript
    assert json.loads(transcript.splitlines()[0])["content"] == "hello"
