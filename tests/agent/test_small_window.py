"""A small window in one session (CV11, CV14), against the provider emulator (real HTTP): the
window a refusal states is the status's and `/context`'s from then on; a window no compaction
can meet stops the compactions for good (no summary per later message); the restoration names
the skills invoked and the background work running; `/context` adds up after `/compact`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.providers import providers
from tests.providers.emulator import Call, Emulator, Rejection, Seen, call, running, say
from wave_tui.features.memory.context_report import build_context_report
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions

WINDOW = 9000


def _session(project: Path, env: dict[str, str], **options: object) -> AgentSession:
    environ = {**env, "WAVE_DISABLE_AUTO_MEMORY": "1"}
    return create_session(AgentOptions(workdir=project, environ=environ, **options))  # type: ignore[arg-type]


def _sessions() -> list[Path]:
    return sorted((Path.home() / ".wave" / "projects").glob("*/*.jsonl"))


@pytest.mark.req("CV11")
async def test_cv11_the_window_a_refusal_states_is_the_status_and_context_window(
    project: Path,
) -> None:
    (project / "big.txt").write_text("".join(f"line {i} of a long file\n" for i in range(900)))
    with running(providers.vllm(window=WINDOW)) as em:
        em.script(
            call(Call("Read", {"file_path": "big.txt"})), say("Summary: read big.txt."), say("ok")
        )
        session = _session(project, em.env())
        try:
            session.start()
            assert session.status().context_window == 128_000  # nothing said yet
            result = await session.run_turn("read big.txt")
            status = session.status()
            assert session.service is not None
            report = build_context_report(session.service)
        finally:
            await session.close()
    assert result.status == "completed" and result.text == "ok"
    assert len(em.rejected) == 1  # the refusal that stated the window
    assert status.context_window == WINDOW
    assert status.context_tokens is not None and status.context_tokens < WINDOW  # ctx % < 100
    assert report.window_tokens == WINDOW
    assert f"of a {WINDOW:,}-token window" in report.render()


@pytest.mark.req("CV11")
async def test_cv11_after_two_failures_later_messages_are_not_compacted_again(
    project: Path,
) -> None:
    with running(Emulator(rules=[providers.dense_window_of(WINDOW, density=2.5)])) as em:
        em.script(*[say(f"Summary {n}.") for n in range(6)])
        session = _session(project, em.env())
        try:
            session.start()
            first = await session.run_turn("hello")
            summaries = len([c for c in em.chats() if not c.body.get("tools")])
            later = [await session.run_turn(f"message {n}") for n in range(3)]
        finally:
            await session.close()
    assert first.status == "error" and first.error is not None and "/clear" in first.error
    assert summaries == 2
    assert len([c for c in em.chats() if not c.body.get("tools")]) == 2  # none for later ones
    assert all(r.status == "error" and r.error == first.error for r in later)
    assert len(_sessions()) == 1


@pytest.mark.req("CV11")
async def test_cv11_the_restoration_names_invoked_skills_and_running_background_work(
    project: Path,
) -> None:
    skill = project / ".wave" / "skills" / "review"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: review\ndescription: Review a change\n---\nREVIEW-STEP-ONE: read the diff.\n"
    )
    with running(Emulator()) as em:
        em.script(
            call(Call("Skill", {"skill": "review"})),
            say("reviewing"),
            call(Call("Bash", {"command": "sleep 30", "run_in_background": True})),
            say("started"),
            say("The summary."),
        )
        session = _session(project, em.env(), permission_mode="bypassPermissions")
        try:
            session.start()
            assert (await session.run_turn("review my change")).status == "completed"
            assert (await session.run_turn("start the watcher")).status == "completed"
            assert await session.compact()
            compress = session.messages()[0]
        finally:
            await session.close()
    assert compress.kind == "compress"
    restoration = compress.content.split("[Context Restoration]", 1)[1]
    assert "Skills invoked in this session: review" in restoration
    assert "REVIEW-STEP-ONE: read the diff." in restoration  # its instructions, still in force
    running_work = restoration.split("Background work still running:", 1)[1].splitlines()[1]
    assert "sleep 30" in running_work and "BashOutput" in running_work


ROW = re.compile(r"^  \S+\s+.*?\s([\d,]+)\s+[\d.]+%$")


@pytest.mark.req("CV14")
async def test_cv14_after_compact_the_context_total_is_the_sum_of_its_rows(
    model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(text("first answer " * 200), text("second answer " * 200), text("S."))
    session = _session(project, model_server.env())
    try:
        session.start()
        await session.run_turn("first question " * 100)
        await session.run_turn("second question")
        assert session.status().cache_hit_ratio is not None
        assert await session.compact()
        assert session.service is not None
        report = build_context_report(session.service)
        status = session.status()
        shown = (await session.run_turn("/context")).text
    finally:
        await session.close()
    assert report.total_tokens == sum(s.tokens for s in report.sources)
    rows = [int(m.group(1).replace(",", "")) for m in map(ROW.match, shown.splitlines()) if m]
    total = int(re.search(r"Next request: ~?([\d,]+) tokens", shown).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert rows and sum(rows) == total
    # the status line counts the next request the same way, and shows no stale cache figure
    assert status.context_tokens == report.total_tokens
    assert status.cache_hit_ratio is None
    assert json.dumps(report.to_json())  # still serialisable


@pytest.mark.req("FH10")
async def test_a_larger_window_stated_later_lets_compaction_try_again(project: Path) -> None:
    """A window too small stopped the compactions for the session; the server, restarted with
    a larger context, states it in its next refusal: the session compacts again and the turn
    goes through."""

    def larger(seen: Seen) -> Rejection | None:
        # Main requests that still carry the first prompt are refused, naming a larger window.
        if seen.body.get("tools") and "first words" in json.dumps(seen.messages):
            message = (
                "This model's maximum context length is 128000 tokens. Please reduce the "
                "length of the messages."
            )
            return 400, {
                "error": {
                    "message": message,
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
            }
        return None

    with running(Emulator()) as em:
        em.script(say("noted"), *[say(f"Summary {n}.") for n in range(2)])
        session = _session(project, em.env())
        try:
            session.start()
            assert (await session.run_turn("first words")).text == "noted"
            em.rules[:] = [providers.dense_window_of(WINDOW, density=2.5)]
            small = await session.run_turn("second words")
            assert small.status == "error" and small.error is not None and "/clear" in small.error
            em.rules[:] = [larger]
            summaries = len([c for c in em.chats() if not c.body.get("tools")])
            again = await session.run_turn("go on")
        finally:
            await session.close()
    assert again.status == "completed", again.error
    assert len([c for c in em.chats() if not c.body.get("tools")]) == summaries + 1
    last = [c for c in em.chats() if c.body.get("tools")][-1]
    assert "first words" not in json.dumps(last.messages)  # compacted away, and accepted
