"""One rule for the bytes of every memory source (AGENTS.md, rules, nested memory, imports).

A file with NUL bytes is binary: never loaded, reported. Text that is not valid UTF-8 (Latin-1,
say) is loaded with the undecodable bytes replaced, and reported — so neither NUL bytes nor a
silent run of replacement characters ever reaches a request.
"""

from __future__ import annotations

from wave_tui.config.records import record

BINARY_SNIFF_BYTES = 8192  # as git and ripgrep: a NUL in the first 8 KiB means binary
BINARY_PROBLEM = "binary file (NUL bytes); not loaded"
UNDECODABLE_PROBLEM = "not valid UTF-8; undecodable bytes were replaced"


@record(bulk=True)
class DecodedText:
    text: str | None  # None: not loaded (binary)
    problem: str | None  # one line for the user, or None when the file is clean UTF-8


# req: X11
def decode_memory_bytes(data: bytes) -> DecodedText:
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return DecodedText(None, BINARY_PROBLEM)
    try:
        return DecodedText(data.decode("utf-8"), None)
    except UnicodeDecodeError:
        return DecodedText(data.decode("utf-8", errors="replace"), UNDECODABLE_PROBLEM)
