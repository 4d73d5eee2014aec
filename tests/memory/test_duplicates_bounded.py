"""The duplicate checks stay bounded in time whatever the memory sizes (SP8): big memories are
never handed to the quadratic `difflib` ratio, through the real write hook and consolidation,
and short texts keep the exact verdicts they had."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from tests.extraction_helpers import is_main
from tests.memory.big_memories import edited, topic, write_topics
from tests.model_server import ModelServer, text, tool_call
from wave_tui.agent.service import AgentOptions
from wave_tui.config.paths import WavePaths
from wave_tui.memory.catalog import build_catalog
from wave_tui.memory.consolidation import duplicate_groups
from wave_tui.memory.entries import normalise
from wave_tui.memory.rules import RuleSet
from wave_tui.memory.similarity import EXACT_MAX_CHARS, Compared, close_ratio
from wave_tui.session.factory import create_service

COUNT, SIZE = 50, 50_000


class _BoundedMatcher(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """Fails the test instead of spending minutes in a quadratic ratio of two big texts."""

    def set_seq1(self, a: object) -> None:
        assert len(a) <= EXACT_MAX_CHARS, f"SequenceMatcher given {len(a)} characters"  # type: ignore[arg-type]
        super().set_seq1(a)

    def set_seq2(self, b: object) -> None:
        assert len(b) <= EXACT_MAX_CHARS, f"SequenceMatcher given {len(b)} characters"  # type: ignore[arg-type]
        super().set_seq2(b)


@pytest.fixture
def bounded_matcher(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(difflib, "SequenceMatcher", _BoundedMatcher)


@pytest.mark.req("SP8")
async def test_sp8_memory_write_among_fifty_big_memories_is_checked_and_named(
    model_server: ModelServer, project: Path, bounded_matcher: None
) -> None:
    env = {"WAVE_BASE_URL": model_server.base_url, "WAVE_MODEL": "test-model"}
    service = create_service(AgentOptions(workdir=project, environ=env))
    service.start()
    try:
        mem = service.paths.memory_dir
        write_topics(mem, COUNT, SIZE)
        copy = edited(topic(17, SIZE))
        model_server.enqueue(
            tool_call("Write", {"file_path": str(mem / "new.md"), "content": copy}),
            text("noted"),
            when=is_main,
        )
        await service.run_turn("remember the notes")
    finally:
        await service.destroy()
    main = [r for r in model_server.requests if is_main(r.body)][-1]
    (result,) = [m["content"] for m in main.body["messages"] if m.get("role") == "tool"]
    assert "Note: this memory closely matches (99%) auto:topic17.md" in result
    assert result.count("Note: this memory") == 1


@pytest.mark.req("SP8")
def test_sp8_consolidation_finds_the_one_near_copy_among_fifty_big_memories(
    project: Path, isolated_home: Path, bounded_matcher: None
) -> None:
    paths = WavePaths(project_root=project.resolve(), home=isolated_home.resolve())
    write_topics(paths.memory_dir, COUNT, SIZE)
    (paths.memory_dir / "new.md").write_text(edited(topic(17, SIZE)), encoding="utf-8")
    entries = build_catalog(paths, rules=RuleSet([], paths.project_root))
    groups = duplicate_groups(entries)
    assert [sorted(e.path.name for e in pair) for pair in groups] == [["new.md", "topic17.md"]]


SHORT_PAIRS = [
    ("Prefer tabs over spaces.", "prefer tabs over spaces"),
    ("Build the release with make dist", "Build the release with `make dist` only"),
    ("Run the tests with pytest -q", "Run the unit tests with pytest -x"),
    ("Use pnpm, not npm, for installs", "Use yarn, not pnpm, for deployments"),
    ("Deploy on Fridays never", "Deploy on Fridays never, and not on Mondays either"),
    ("x" * 400 + " tail one", "x" * 400 + " tail two"),
    (" ".join(f"word{i}" for i in range(100)), " ".join(f"word{i}" for i in range(3, 102))),
]


@pytest.mark.req("SP8")
@pytest.mark.parametrize(("a", "b"), SHORT_PAIRS, ids=range(len(SHORT_PAIRS)))
def test_sp8_short_texts_keep_the_exact_difflib_verdict(a: str, b: str) -> None:
    ka, kb = normalise(a), normalise(b)
    exact = 1.0 if ka == kb else difflib.SequenceMatcher(None, ka, kb, autojunk=False).ratio()
    assert close_ratio(Compared(ka), Compared(kb)) == (exact if exact >= 0.85 else None)


@pytest.mark.req("SP8")
def test_sp8_big_texts_match_a_near_copy_but_not_a_text_of_the_same_words() -> None:
    original = Compared(normalise(topic(3, SIZE)))
    assert close_ratio(original, Compared(normalise(edited(topic(3, SIZE))))) == 0.99
    assert close_ratio(original, Compared(normalise(topic(4, SIZE)))) is None
    assert close_ratio(original, Compared(normalise(topic(3, SIZE)))) == 1.0
