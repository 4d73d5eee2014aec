"""The memory prompts: main-agent section and extraction prompt (P1–P9, F12, M1, M2)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.memory.prompt_sections import (
    FRONTMATTER_KEYS,
    NOT_SAVE_KEYWORDS,
    forbidden_save_terms,
    split_typology,
)
from wave_tui.memory.prompts import (
    FRONTMATTER_TEMPLATE,
    MEMORY_TYPES,
    TYPOLOGY_IN_PREFIX,
    WHAT_NOT_TO_SAVE,
    render_extraction_prompt,
    render_manual_memory_guidance,
    render_memory_index_block,
    render_memory_section,
    render_standalone_extraction_prompt,
    render_typology,
)

MEM = Path("/home/u/.wave/projects/home-u-proj/memory")
MANIFEST = "- [user] user_role.md (2026-11-29T10:00:00.000Z): senior Go developer"


@pytest.fixture
def section() -> str:
    return render_memory_section(MEM)


@pytest.fixture
def extraction() -> str:
    return render_extraction_prompt(MEM, MANIFEST)


@pytest.fixture
def fork_request(section: str, extraction: str) -> str:
    """What one fork request holds (P8): the main system prompt, then the extraction prompt."""
    return f"{section}\n\n{extraction}"


@pytest.fixture
def standalone() -> str:
    return render_standalone_extraction_prompt(MEM, MANIFEST)


@pytest.mark.req("P1")
def test_p1_four_types_with_all_fields(section: str) -> None:
    assert [t.name for t in MEMORY_TYPES] == ["user", "feedback", "project", "reference"]
    for t in MEMORY_TYPES:
        assert f"<name>{t.name}</name>" in section
        for text in (t.description, t.when_to_save, t.how_to_use):
            assert text and text in section
        for line in t.example.splitlines():
            assert line in section
    for tag in ("description", "when_to_save", "how_to_use", "example"):
        assert section.count(f"<{tag}>") == 4


@pytest.mark.req("P2")
def test_p2_what_not_to_save_and_explicit_requests(section: str) -> None:
    not_save = split_typology(section).not_save
    for item in WHAT_NOT_TO_SAVE:
        assert f"- {item}" in not_save
    low = not_save.lower()
    for needle in (
        "architecture",
        "file paths",
        "git history",
        "who changed what",
        "debugging solutions",
        "fix recipes",
        "agents.md",
        "claude.md",
        "ephemeral",
    ):
        assert needle in low
    assert "even when the user explicitly asks" in not_save
    assert "surprising or non-obvious" in not_save


@pytest.mark.req("P3")
def test_p3_two_step_save_and_index_rules(section: str) -> None:
    assert "**Step 1**" in section and "**Step 2**" in section
    assert section.index("**Step 1**") < section.index("**Step 2**")
    assert FRONTMATTER_TEMPLATE in section
    for key in FRONTMATTER_KEYS:
        assert re.search(rf"^{key}: ", FRONTMATTER_TEMPLATE, flags=re.MULTILINE)
    assert "`MEMORY.md` is an index, not a memory" in section
    assert "one line per entry" in section
    assert "~150 characters" in section
    assert "no frontmatter" in section
    assert "never the content of a memory itself" in section


@pytest.mark.req("P4")
def test_p4_when_to_access(section: str) -> None:
    assert "earlier conversation" in section
    assert (
        "You MUST read memory when the user explicitly asks you to check, recall or remember"
        in (section)
    )
    assert "proceed as if MEMORY.md were empty" in section
    assert "do not apply, cite, compare against or mention" in section


@pytest.mark.req("P5")
def test_p5_verify_before_recommending(section: str) -> None:
    assert "## Before recommending from memory" in section
    assert "renamed or removed" in section
    assert "check that it exists" in section
    assert "about to act on your recommendation, verify first" in section


@pytest.mark.req("P6")
def test_p6_memory_vs_plan_vs_tasks(section: str) -> None:
    part = section[section.index("## Memory and other forms of persistence") :]
    assert "use a plan, not memory" in part
    assert "use tasks, not memory" in part
    assert "future conversations" in part


@pytest.mark.req("P7")
def test_p7_directory_exists_no_mkdir(section: str) -> None:
    assert f"`{MEM}`" in section
    assert "already exists" in section
    assert "with the Write tool" in section
    assert "Never run mkdir or check whether it exists" in section
    assert "local to this machine" in section
    assert "every work tree of this repository" in section


def _save_sentences(text: str, not_save: str) -> list[str]:
    """Sentences outside the do-not-save part that ask to save/record/write something."""
    rest = text.replace(not_save, "")
    sentences = re.split(r"(?<=[.;:])\s+|\n", rest)
    verbs = re.compile(r"\b(save|saving|record|remember|write|add|keep)\b", re.IGNORECASE)
    return [s for s in sentences if verbs.search(s)]


@pytest.mark.req("P8")
@pytest.mark.parametrize("which", ["section", "fork_request", "standalone"])
def test_p8_no_save_instruction_names_a_forbidden_category(
    which: str, section: str, fork_request: str, standalone: str
) -> None:
    text = {"section": section, "fork_request": fork_request, "standalone": standalone}[which]
    parts = split_typology(text)
    assert parts.save and parts.not_save
    assert forbidden_save_terms(parts.save) == []
    offending = [s for s in _save_sentences(text, parts.not_save) if forbidden_save_terms(s)]
    assert offending == []


@pytest.mark.req("P8")
def test_p8_both_prompts_share_one_typology(
    section: str, extraction: str, fork_request: str, standalone: str
) -> None:
    # The fork's request carries the typology once, in the shared system prompt; a standalone
    # extraction prompt (no auto-memory section in the prefix) carries the same one itself.
    assert render_typology() not in extraction and TYPOLOGY_IN_PREFIX in extraction
    assert fork_request.count(render_typology()) == 1
    main, fork = split_typology(section), split_typology(standalone)
    assert main == fork == split_typology(fork_request)
    for item in WHAT_NOT_TO_SAVE:
        assert item in main.not_save and item in fork.not_save
    # every forbidden category is actually named in the do-not-save part of both
    for keyword in NOT_SAVE_KEYWORDS:
        assert keyword in main.not_save.lower(), keyword


@pytest.mark.req("P8")
def test_p8_checker_catches_a_contradiction() -> None:
    bad = (
        "## Types of memory\n\nSave architecture decisions and debugging insights.\n\n"
        "## What NOT to save in memory\n\n- Architecture\n"
    )
    assert forbidden_save_terms(split_typology(bad).save) == ["architecture", "debugging"]


@pytest.mark.req("P9")
def test_p9_same_frontmatter_in_both(section: str, fork_request: str, standalone: str) -> None:
    assert FRONTMATTER_TEMPLATE in section
    assert fork_request.count(FRONTMATTER_TEMPLATE) == 1
    assert FRONTMATTER_TEMPLATE in standalone


@pytest.mark.req("F12")
def test_f12_extraction_prompt_manifest_first(extraction: str, standalone: str) -> None:
    assert extraction.startswith("## Existing memory files\n\n" + MANIFEST + "\n")
    assert standalone.startswith("## Existing memory files\n\n" + MANIFEST + "\n")
    assert standalone.index(MANIFEST) < standalone.index("## Types of memory")
    assert extraction.index(MANIFEST) < extraction.index(TYPOLOGY_IN_PREFIX)
    assert f"`{MEM}`" in extraction
    for tool in ("Read", "Grep", "Glob", "read-only Bash", "Write and Edit only"):
        assert tool in extraction
    assert "update it instead of creating a new one" in extraction
    assert "a few turns at most" in extraction
    assert "no tool calls" in extraction
    assert "Review the conversation above" in extraction


@pytest.mark.req("F12")
def test_f12_extraction_prompt_without_memories() -> None:
    text = render_extraction_prompt(MEM, "")
    assert text.startswith("## Existing memory files\n\n(none yet: no memory files exist)\n")


@pytest.mark.req("A2")
def test_a2_index_block() -> None:
    assert render_memory_index_block("- [A](a.md) — a\n", None) == "## MEMORY.md\n\n- [A](a.md) — a"
    empty = render_memory_index_block("", None)
    assert empty.startswith("## MEMORY.md\n\n") and "currently empty" in empty
    warned = render_memory_index_block("- x", "> WARNING: too long")
    assert warned.endswith("- x\n\n> WARNING: too long")


@pytest.mark.req("M1", "M2")
def test_m1_m2_manual_memory_guidance(tmp_path: Path) -> None:
    project, user = tmp_path / "AGENTS.md", tmp_path / "home" / ".wave" / "AGENTS.md"
    text = render_manual_memory_guidance(project, user)
    assert f"`{project}`" in text and f"`{user}`" in text
    assert text.index("this project") < text.index(str(project))
    assert "list item" in text
    assert "Create the file if it is missing" in text
    assert "see and delete" in text
    assert forbidden_save_terms(text) == []


def test_prompts_are_deterministic() -> None:
    assert render_memory_section(MEM) == render_memory_section(MEM)
    assert render_extraction_prompt(MEM, MANIFEST) == render_extraction_prompt(MEM, MANIFEST)
