"""`@path` in a message (UX16), for the app and `wave -p` alike: the file's text is attached to
the message and recorded in the read state, as a Read would; Tab completes a trailing `@partial`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from wave_tui.agent.attachments import CUT_MARK, attached_block
from wave_tui.config.records import record
from wave_tui.files.images import is_image_path
from wave_tui.files.read_state import ReadState

ATTACH_MAX = 100_000  # characters of an attached file
LISTING_MAX = 500  # entries of an attached folder
ATTACHMENT = re.compile(r"(?<![\w@])@((?:\\ |[^\s])+)")


def attachment_paths(text: str, root: Path) -> list[Path]:
    """The files and folders named `@path` in the message (relative to the root, or absolute)
    that exist."""
    found: list[Path] = []
    for match in ATTACHMENT.finditer(text):
        name = match.group(1).replace("\\ ", " ").rstrip(".,;:!?)")
        path = (root / Path(name).expanduser()).resolve()
        if (path.is_file() or path.is_dir()) and path not in found:
            found.append(path)
    return found


@record
class Attached:
    """A message with its `@path` files attached: the text sent, the files attached (not the
    folders), and one line for the user per attachment that is not whole."""

    text: str
    paths: list[Path]
    notes: list[str]


# req: UX16
# req: FH10
def attach_files(text: str, root: Path, read_state: ReadState) -> Attached:
    """The message with each `@path` file's text appended, and each `@folder/`'s listing; the
    files are recorded as read."""
    parts = [text]
    files: list[Path] = []
    notes: list[str] = []
    for path in attachment_paths(text, root):
        if path.is_dir():
            listing, note = _folder_listing(path)
            parts.append(attached_block(path, listing))
            notes += [note] if note else []
            continue
        if is_image_path(path):
            continue  # attached as an image (features/images), never as text
        try:
            with path.open("rb") as fh:
                # At most what is shown (4 bytes a character, at worst) is read: a multi-GB
                # log named with `@` costs no more memory than a small one.
                raw = fh.read(ATTACH_MAX * 4 + 1)
                whole = not fh.read(1)
            stat = path.stat()
            content = raw.decode("utf-8") if whole else raw.decode("utf-8", "ignore")
        except (OSError, UnicodeDecodeError):
            continue
        files.append(path)
        if whole:  # only a file read whole counts as read (a later Edit checks against it)
            read_state.record_text(path, content, stat.st_mtime_ns)
        cut = not whole or len(content) > ATTACH_MAX
        if cut:
            shown = content[:ATTACH_MAX]
            lines = shown.count("\n")
            said = (
                f"{path.name}: only its first {ATTACH_MAX:,} characters ({lines:,} lines) of "
                f"{stat.st_size:,} bytes are attached"
            )
            notes.append(said)
            shown += f"\n{CUT_MARK}{said}; Read it with offset/limit for the rest)"
        else:
            shown = content
        parts.append(attached_block(path, shown))
    return Attached("\n\n".join(parts), files, notes)


def _folder_listing(folder: Path) -> tuple[str, str | None]:
    """A folder as its entries, sorted, sub-folders with a trailing `/` (the first
    LISTING_MAX; a note when there were more)."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(
                e.name + ("/" if e.is_dir(follow_symlinks=False) else "")
                for e in entries
                if e.name != ".git"
            )
    except OSError as exc:
        return f"(the folder cannot be listed: {exc.strerror or exc})", None
    if not names:
        return "(an empty folder)", None
    shown = names[:LISTING_MAX]
    note = None
    if len(names) > LISTING_MAX:
        note = f"{folder.name}/: only its first {LISTING_MAX:,} of {len(names):,} entries listed"
        shown.append(f"{CUT_MARK}{note})")
    return "\n".join(shown), note


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
