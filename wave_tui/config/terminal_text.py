"""Text that did not come from wave, made safe to show on a terminal (one sanitiser, one home).

Model text, tool and `!cmd` output, MCP results, memory files and settings values can hold
control sequences: an OSC retitles the window or writes the clipboard, a CSI clears the screen
or moves the cursor so that a permission dialog shows `ls -la` where `rm -rf …` will run, a
carriage return or a bidi override makes a line read differently from what it is. `neutralise`
turns every such character into a visible stand-in (`␛`, `␍`, `<U+202E>`), keeping newlines and
tabs. The app applies it to every event it shows (`neutralise_value`); the command line wraps
its stdout and stderr (`NeutralisingStream`), so wave's own output is the only output that can
reach the terminal raw — and wave writes no control sequences there.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO, TypeVar

# C0 but tab and newline, DEL, C1; the bidi embeddings, overrides and isolates; BOM-less
# zero-width tricks are left alone (they move nothing on a terminal).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_T = TypeVar("_T")


def _stand_in(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (␛ for ESC, ␍ for CR)
    if code == 0x7F:
        return "␡"
    return f"<U+{code:04X}>"


def neutralise(text: str) -> str:
    """`text` with every terminal control character replaced by a visible stand-in."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_stand_in, text.replace("\r\n", "\n"))


def neutralise_value(value: _T, _depth: int = 0) -> _T:
    """`value` with `neutralise` applied to every string in it: dataclass and pydantic fields,
    dicts, lists and tuples (new objects; anything else — futures, paths, numbers — is kept)."""
    if _depth > 8:
        return value
    result: Any = value
    if isinstance(value, str):
        result = neutralise(value)
    elif isinstance(value, dict):
        result = {
            neutralise_value(k, _depth + 1): neutralise_value(v, _depth + 1)
            for k, v in value.items()
        }
    elif isinstance(value, list):
        result = [neutralise_value(v, _depth + 1) for v in value]
    elif isinstance(value, tuple) and not hasattr(value, "_fields"):
        result = tuple(neutralise_value(v, _depth + 1) for v in value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for field in dataclasses.fields(value):
            if not field.init:
                continue
            old = getattr(value, field.name)
            new = neutralise_value(old, _depth + 1)
            if new is not old and new != old:
                changes[field.name] = new
        result = dataclasses.replace(value, **changes) if changes else value
    elif hasattr(type(value), "model_fields") and hasattr(value, "model_copy"):
        # A pydantic model (the conversation's messages): copied with the changed fields.
        updates = {}
        model: Any = value
        for name in type(model).model_fields:
            old = getattr(model, name)
            new = neutralise_value(old, _depth + 1)
            if new is not old and new != old:
                updates[name] = new
        result = model.model_copy(update=updates) if updates else value
    return result  # type: ignore[no-any-return]


class NeutralisingStream:
    """A text stream whose `write` neutralises what it is given; everything else is the
    wrapped stream's (`flush`, `fileno`, `isatty`, `buffer`, `encoding` …)."""

    def __init__(self, stream: TextIO) -> None:
        self.wrapped = stream

    def write(self, text: str) -> int:
        self.wrapped.write(neutralise(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


@contextmanager
def neutralised_streams() -> Iterator[None]:
    """`sys.stdout` and `sys.stderr` neutralising for the block (the command line's output)."""
    import sys

    saved = sys.stdout, sys.stderr
    if sys.stdout is not None and not isinstance(sys.stdout, NeutralisingStream):
        sys.stdout = NeutralisingStream(sys.stdout)
    if sys.stderr is not None and not isinstance(sys.stderr, NeutralisingStream):
        sys.stderr = NeutralisingStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
