"""Large auto memories for the duplicate checks' size tests and bench: topic files of short
lines, each different from the others but written with one shared vocabulary."""

from __future__ import annotations

import random
from pathlib import Path

VOCABULARY = [
    f"{a}{b}"
    for a in ("ka", "lo", "mi", "ne", "pu", "ro", "si", "tu")
    for b in ("bar", "cen", "dil", "fon", "gas", "hek", "jum", "kot", "lis", "mav")
]


def topic(n: int, size: int) -> str:
    """A memory file of about `size` characters: frontmatter, then short lines."""
    rng = random.Random(n)
    lines = [f"---\nname: topic{n}\ndescription: notes {n}\ntype: project\n---"]
    length = len(lines[0])
    while length < size:
        line = "- " + " ".join(rng.choices(VOCABULARY, k=rng.randint(2, 4)))
        lines.append(line)
        length += len(line) + 1
    return "\n".join(lines) + "\n"


def edited(text: str, every: int = 250) -> str:
    """`text` with one line in `every` reworded: a near copy."""
    lines = text.splitlines()
    for i in range(8, len(lines), every):
        lines[i] = lines[i] + " reworded"
    return "\n".join(lines) + "\n"


def write_topics(folder: Path, count: int, size: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for n in range(count):
        path = folder / f"topic{n}.md"
        path.write_text(topic(n, size), encoding="utf-8")
        written.append(path)
    return written
