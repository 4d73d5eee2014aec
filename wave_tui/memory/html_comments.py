"""HTML comments in instruction files are notes for people, not for the model: `<!-- … -->`
outside code fences is taken out of AGENTS.md, CLAUDE.md and rules before they are sent (MR6).

A comment alone on its lines goes with its lines; one inside a line leaves the rest of the
line. Fenced code keeps its text as written, and an unclosed `<!--` is left alone (nothing
after it is silently dropped).
"""

from __future__ import annotations

import re

_COMMENT = r"<!--(?:(?!-->).)*?-->"
_WHOLE_LINES = re.compile(r"^[ \t]*" + _COMMENT + r"[ \t]*(?:\n|\Z)", re.MULTILINE | re.DOTALL)
_INLINE = re.compile(_COMMENT, re.DOTALL)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


# req: MR6
def strip_html_comments(text: str) -> str:
    """`text` without its HTML comments outside code fences."""
    if "<!--" not in text:
        return text
    out: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        opener = _FENCE.match(line)
        if fence is None and opener is not None:
            out.append(_strip(prose))
            prose = []
            fence = opener.group(1)
            out.append(line)
        elif fence is not None:
            out.append(line)
            if opener is not None and _closes(opener.group(1), fence, line):
                fence = None
        else:
            prose.append(line)
    out.append(_strip(prose))
    return "".join(out)


def _closes(marker: str, fence: str, line: str) -> bool:
    """A line of the fence's character, at least as long, and nothing else."""
    return marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip(" \n`~")


def _strip(lines: list[str]) -> str:
    chunk = "".join(lines)
    if "<!--" not in chunk:
        return chunk
    return _INLINE.sub("", _WHOLE_LINES.sub("", chunk))
