"""How a file attached to a message (`@path`) is laid out in its text, and read back out of it.

One home for the `<attached-file>` wrapper: the input layer writes it, the chat shows the message
without it, the loop takes a failed prompt back without it, and the memory observers find the
attached paths through it.
"""

from __future__ import annotations

import re
from pathlib import Path

ATTACHED_MARK = re.compile(r'^<attached-file path="([^"\n]+)">$', re.MULTILINE)


def attached_block(path: Path, shown: str) -> str:
    """One attached file as the message carries it."""
    return f'<attached-file path="{path}">\n{shown}\n</attached-file>'


def attached_paths(message: str) -> list[Path]:
    """The files `attach_files` appended to a message (for the observers a Read would reach)."""
    return [Path(found) for found in ATTACHED_MARK.findall(message)]


ATTACHED_BLOCK = re.compile(
    r'\n\n<attached-file path="([^"\n]+)">\n.*?\n</attached-file>(?=\n\n<attached-file|\Z)',
    re.DOTALL,
)


def without_attachments(message: str) -> str:
    """The message as the user typed it, each attached file as one line (for the chat view)."""
    names = ATTACHED_BLOCK.findall(message)
    typed = ATTACHED_BLOCK.sub("", message)
    return typed + "".join(f"\n(attached: {Path(name).name})" for name in names)
