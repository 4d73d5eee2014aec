"""`@path` in a message (UX16), for the app and `wave -p` alike: the file's text is attached to
the message and recorded in the read state, as a Read would; Tab completes a trailing `@partial`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from wave_tui.agent.attachments import attached_block
from wave_tui.files.images import is_image_path
from wave_tui.files.read_state import ReadState

ATTACH_MAX = 100_000  # characters of an attached file
ATTACHMENT = re.compile(r"(?<![\w@])@((?:\\ |[^\s])+)")


def attachment_paths(text: str, root: Path) -> list[Path]:
    """The files named `@path` in the message (relative to the root, or absolute) that exist."""
    found: list[Path] = []
    for match in ATTACHMENT.finditer(text):
        name = match.group(1).replace("\\ ", " ").rstrip(".,;:!?)")
        path = (root / Path(name).expanduser()).resolve()
        if path.is_file() and path not in found:
            found.append(path)
    return found


# req: UX16
def attach_files(text: str, root: Path, read_state: ReadState) -> tuple[str, list[Path]]:
    """The message with each `@path` file's text appended; the files are recorded as read."""
    paths = attachment_paths(text, root)
    parts = [text]
    for path in paths:
        if is_image_path(path):
            continue  # attached as an image (features/images), never as text
        try:
            with path.open("rb") as fh:
                # At most what is shown (4 bytes a character, at worst) is read: a multi-GB
                # log named with `@` costs no more memory than a small one.
                raw = fh.read(ATTACH_MAX * 4 + 1)
                whole = not fh.read(1)
            mtime_ns = path.stat().st_mtime_ns
            content = raw.decode("utf-8") if whole else raw.decode("utf-8", "ignore")
        except (OSError, UnicodeDecodeError):
            continue
        if whole:  # only a file read whole counts as read (a later Edit checks against it)
            read_state.record_text(path, content, mtime_ns)
        cut = not whole or len(content) > ATTACH_MAX
        shown = content[:ATTACH_MAX] + "\n… (cut)" if cut else content
        parts.append(attached_block(path, shown))
    return "\n\n".join(parts), paths


def complete_path(text: str, root: Path, limit: int = 50) -> tuple[str, tuple[str, ...]] | None:
    """Tab on a trailing `@partial`: the completed text and the candidates (fuzzy: the letters
    in order), or None when the input does not end in an `@` token."""
    match = re.search(r"(?:^|\s)@(\S*)$", text)
    if match is None:
        return None
    partial = match.group(1)
    pattern = re.compile(".*?".join(re.escape(c) for c in partial.lower()))
    candidates: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "node_modules")
        for name in sorted(filenames):
            relative = str((Path(dirpath) / name).relative_to(root))
            if pattern.search(relative.lower()):
                candidates.append(relative)
                if len(candidates) >= limit:
                    break
        if len(candidates) >= limit:
            break
    if not candidates:
        return text, ()
    exact = [c for c in candidates if c.lower().startswith(partial.lower())]
    best = (exact or candidates)[0] if len(candidates) == 1 or exact else None
    if best is None:
        return text, tuple(candidates)
    prefix = text[: match.end() - len(partial)]
    completed = prefix + best if len(candidates) == 1 else prefix + _common_prefix(exact)
    return completed, tuple(candidates) if len(candidates) > 1 else ()


def _common_prefix(items: list[str]) -> str:
    return os.path.commonprefix(items) if items else ""  # noqa: RUF071 (character prefix wanted)
