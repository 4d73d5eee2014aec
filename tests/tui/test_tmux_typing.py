"""Typing ahead in a real terminal (CV1, CV2): messages typed quickly while slow turns run
reach the model each once, in order, never merged; a burst of keys keeps its order.

`wave` runs in tmux against the scripted model server of this process: its request log is
what the model received.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.extraction_helpers import is_fork
from tests.model_server import ModelServer, RecordedRequest, text, tool_call
from tests.tui.test_tmux import Tmux, start_wave

# The real terminal is part of what is tested: without tmux these fail (CI installs it).
assert shutil.which("tmux") is not None, (
    "tmux is needed for the terminal tests: apt-get install tmux"
)

MESSAGES = [f"note {n:02d}" for n in range(1, 26)]
NOTE = re.compile(r"note \d\d")
REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.S)


@pytest.fixture
def tmux() -> Any:
    session = Tmux()
    try:
        yield session
    finally:
        session.run("kill-server", check=False)


def _content(message: dict[str, Any]) -> str:
    """What the user typed: the message's text without the memory reminder (AGENTS.md) that
    rides in front of the first prompt."""
    content = message.get("content")
    if not isinstance(content, str):
        content = "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))
    return REMINDER.sub("", content)


def _last_note(record: RecordedRequest) -> str | None:
    """A main-loop request's new prompt: its last message, a user one naming a note (the
    extraction fork's requests end with its own prompt)."""
    messages = record.body.get("messages") or []
    if messages and messages[-1].get("role") == "user":
        last = _content(messages[-1])
        if NOTE.search(last):
            return last
    return None


def _prompts(server: ModelServer) -> list[str]:
    return [note for r in list(server.requests) if (note := _last_note(r)) is not None]


def _typed_prompts(server: ModelServer, count: int) -> list[RecordedRequest]:
    """The first `count` main-loop requests (not the extraction fork's)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        mains = [r for r in list(server.requests) if not is_fork(r.body)]
        if len(mains) >= count:
            return mains[:count]
        time.sleep(0.05)
    raise AssertionError(f"expected {count} prompts, got {_prompts(server)}")


@pytest.mark.req("CV1")
def test_cv1_messages_typed_ahead_in_tmux_reach_the_model_each_once_in_order(
    tmux: Tmux, model_server: ModelServer, tmp_path: Path
) -> None:
    """CV1: 25 messages typed 0.3–0.6 s apart while slow replies stream; the server's log
    shows each exactly once, in order, never merged, and history.jsonl holds each once."""
    model_server.default_reply = text("fine, thanks for that note", delay=0.15)
    start_wave(tmux, model_server.base_url, tmp_path, (120, 40))
    tmux.wait_for_text("Message wave")
    # Typed ahead as a quick typist does: one message, or two in one burst (the second one's
    # keys arrive right behind the first one's Enter), 0.3-0.6 s apart.
    start = 0
    while start < len(MESSAGES):
        burst = MESSAGES[start : start + 1 + start % 2]
        keys = [key for message in burst for key in (message, "Enter")]
        tmux.run("send-keys", "-t", tmux.session, *keys)
        start += len(burst)
        time.sleep(0.3 + 0.1 * (start % 4))
    tmux.wait_for(
        lambda: (
            any(MESSAGES[-1] in p for p in _prompts(model_server))
            and "working" not in tmux.screen()
        ),
        "the last message to be answered",
        timeout=180,
    )
    prompts = _prompts(model_server)
    assert prompts == MESSAGES, prompts
    (last,) = [r.body["messages"] for r in model_server.requests if _last_note(r) == MESSAGES[-1]]
    in_conversation = [
        _content(m) for m in last if m["role"] == "user" and NOTE.search(_content(m))
    ]
    assert in_conversation == MESSAGES
    history = tmp_path / "home" / ".wave" / "history.jsonl"
    lines = [json.loads(line)["text"] for line in history.read_text().splitlines()]
    assert lines == MESSAGES


@pytest.mark.req("CV2")
def test_cv2_bursts_of_keys_keep_their_order_in_tmux(
    tmux: Tmux, model_server: ModelServer, tmp_path: Path
) -> None:
    """CV2: `/help` + Enter in one burst runs `/help` (the popup's completion is not applied
    to what came after); `alpha` Ctrl+J `beta` is sent as two lines, the newline where typed."""
    model_server.default_reply = text("two lines received")
    start_wave(tmux, model_server.base_url, tmp_path, (80, 24))
    tmux.wait_for_text("Message wave")
    # One burst: the command, its Enter, and a message typed straight after it.
    tmux.run("send-keys", "-t", tmux.session, "/help", "Enter", "plain words", "Enter")
    # The help's top may scroll away at 80×24 once the reply is in: either end of it will do.
    help_ends = ("Keys:", "quit (waits for a memory extraction")
    tmux.wait_for(lambda: any(end in tmux.screen() for end in help_ends), "the /help text")
    tmux.wait_for_text("two lines received")
    tmux.run("send-keys", "-t", tmux.session, "alpha", "C-j", "beta", "Enter")
    mains = _typed_prompts(model_server, 2)
    assert _content(mains[0].body["messages"][-1]) == "plain words"
    assert _content(mains[1].body["messages"][-1]) == "alpha\nbeta"


@pytest.mark.req("CV1", "CV10")
def test_typing_on_as_a_permission_dialog_opens_answers_nothing_in_tmux(
    tmux: Tmux, model_server: ModelServer, tmp_path: Path
) -> None:
    """The real terminal, at a typist's pace: words typed on while a permission dialog opens go
    into the message (the `a` of "and" once granted "Always allow"); after a pause, `n` denies."""
    model_server.enqueue(tool_call("Bash", {"command": "touch made.txt"}), text("refused, fine"))
    start_wave(tmux, model_server.base_url, tmp_path, (100, 30))
    tmux.wait_for_text("Message wave")
    tmux.run("send-keys", "-t", tmux.session, "run it", "Enter")
    for word in ("and ", "also ", "explain"):
        time.sleep(0.15)
        tmux.run("send-keys", "-t", tmux.session, word)
    tmux.wait_for_text("Allow Bash?")
    tmux.wait_for(lambda: "and also explain" in tmux.screen(), "the typed words in the input")
    assert not (tmp_path / "project" / "made.txt").exists()
    time.sleep(1.5)  # the user stops typing and reads the dialog
    tmux.run("send-keys", "-t", tmux.session, "n")
    tmux.wait_for_text("refused, fine")
    assert not (tmp_path / "project" / "made.txt").exists()
    assert "and also explain" in tmux.screen()  # still the draft, nothing lost


@pytest.mark.req("CV1")
def test_keys_typed_straight_after_wave_enter_are_sent_and_the_shell_gets_its_terminal_back(
    tmux: Tmux, model_server: ModelServer, tmp_path: Path
) -> None:
    """`wave` Enter, then typing at once, before the app has painted: the terminal was still in
    its cooked mode, Enter arrived as a line feed, and every key was lost. They are sent as
    typed; after the app quits, the shell's terminal has echo and line editing again."""
    model_server.default_reply = text("got it")
    modes = tmp_path / "modes"
    start_wave(tmux, model_server.base_url, tmp_path, (100, 30), after=f"stty -a > {modes}; ")
    tmux.run("send-keys", "-t", tmux.session, "typed at once", "Enter", "then more")
    tmux.wait_for_text("got it")
    assert _prompts_typed(model_server) == ["typed at once"]
    tmux.wait_for_text("then more")
    tmux.run("send-keys", "-t", tmux.session, "C-q")
    tmux.wait_for(modes.exists, "the shell after the app")
    tmux.wait_for(lambda: "icanon" in modes.read_text(), "stty's report")
    flags = modes.read_text().split()
    assert "icanon" in flags and "echo" in flags and "icrnl" in flags


def _prompts_typed(server: ModelServer) -> list[str]:
    return [_content(r.body["messages"][-1]) for r in list(server.requests) if not is_fork(r.body)]
