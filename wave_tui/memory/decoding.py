"""One rule for the bytes of every memory source (AGENTS.md, rules, nested memory, imports).

A file with NUL bytes is binary: never loaded, reported. Text that is not valid UTF-8 (Latin-1,
say) is loaded with the undecodable bytes replaced, and reported — so neither NUL bytes nor a
silent run of replacement characters ever reaches a request.
"""

from __future__ import annotations

from typing import NamedTuple

BINARY_SNIFF_BYTES = 8192  # as git and ripgrep: a NUL in the first 8 KiB means binary
BINARY_PROBLEM = "binary file (NUL bytes); not loaded"
UNDECODABLE_PROBLEM = "not valid UTF-8; undecodable bytes were replaced"


class DecodedText(NamedTuple):
    text: str | None  # None: not loaded (binary)
    problem: str | None  # one line for the user, or None when the file is clean UTF-8


# req: X11
def decode_memory_bytes(data: bytes) -> DecodedText:
    text = clean_text(data)
    if text is not None:
        return DecodedText(text, None)
    if data.find(b"\x00", 0, BINARY_SNIFF_BYTES) >= 0:
        return DecodedText(None, BINARY_PROBLEM)
    return DecodedText(data.decode("utf-8", errors="replace"), UNDECODABLE_PROBLEM)


def clean_text(data: bytes) -> str | None:
    """The text of bytes with nothing to report (no NUL, valid UTF-8), else None: for a caller
    that decodes thousands of files and needs no `DecodedText` for the clean ones."""
    if data.find(b"\x00", 0, BINARY_SNIFF_BYTES) >= 0:  # no copy of the head
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
