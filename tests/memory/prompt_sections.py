"""Test-side readers of the rendered memory prompts: their save and do-not-save parts (P8)."""

from __future__ import annotations

import re

from wave_tui.config.records import record
from wave_tui.memory.prompts import HOW_TO_SAVE_HEADING, NOT_SAVE_HEADING, TYPES_HEADING

FRONTMATTER_KEYS: tuple[str, ...] = ("name", "description", "type")

# Words that mark a category WHAT_NOT_TO_SAVE forbids. No "save" instruction in any memory
# prompt may contain one of them (P8); tests enforce it on the rendered texts.
NOT_SAVE_KEYWORDS: tuple[str, ...] = (
    "code pattern",
    "convention",
    "architecture",
    "file path",
    "project structure",
    "git history",
    "git log",
    "who changed",
    "recent change",
    "debugging",
    "fix recipe",
    "ephemeral",
    "in-progress",
    "temporary state",
)


@record
class TypologySections:
    save: str  # the parts that say what to save and how
    not_save: str  # the part that says what not to save


def _section(text: str, heading: str) -> str:
    """The body of one `## ` section of a rendered prompt ('' when missing)."""
    start = text.find(heading + "\n")
    if start < 0:
        return ""
    rest = text[start + len(heading) :]
    end = re.search(r"^#{1,2} ", rest, flags=re.MULTILINE)
    return (rest[: end.start()] if end else rest).strip()


def split_typology(rendered: str) -> TypologySections:
    """Split a rendered memory prompt into its save and do-not-save parts (for P8 checks)."""
    save = _section(rendered, TYPES_HEADING) + "\n\n" + _section(rendered, HOW_TO_SAVE_HEADING)
    return TypologySections(save=save, not_save=_section(rendered, NOT_SAVE_HEADING))


def forbidden_save_terms(text: str) -> list[str]:
    """The NOT_SAVE_KEYWORDS that `text` mentions (case-insensitive)."""
    low = text.lower()
    return [k for k in NOT_SAVE_KEYWORDS if k in low]
