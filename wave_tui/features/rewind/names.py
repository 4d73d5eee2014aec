"""Session names (`/rename`, `wave sessions rename`) and the folder each session ran in.

Both live in the session's `checkpoints/<id>/session.json`, beside the model it last used: a
fork copies that folder (so the copy keeps the name), and a compacted session continues under a
new id whose name is read down its compaction chain (the nearest session that has one), so a
name given before a compaction still names the conversation after it.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from wave_tui.agent.session_files import session_chain
from wave_tui.config.paths import WavePaths, encode_project_id
from wave_tui.features.rewind.store import read_session_meta, write_session_meta

NAME_KEY = "name"
CWD_KEY = "cwd"
NAME_MAX = 80  # a name is one line in lists and pickers


# req: FH11
def clean_name(text: str) -> str:
    """One line, trimmed, at most NAME_MAX characters; ValueError for an empty name."""
    name = " ".join(text.split())
    if not name:
        raise ValueError("a session name cannot be empty")
    return name[:NAME_MAX].rstrip()


def own_name(paths: WavePaths, session_id: str) -> str | None:
    name = read_session_meta(paths.checkpoint_dir(session_id)).get(NAME_KEY)
    return name if isinstance(name, str) and name else None


# req: FH11
def session_name(paths: WavePaths, session_id: str) -> str | None:
    """The session's name, or the name of the nearest session it was compacted from."""
    for sid in reversed(session_chain(paths, session_id)):
        name = own_name(paths, sid)
        if name:
            return name
    return None


# req: FH11
def set_session_name(paths: WavePaths, session_id: str, text: str) -> str:
    """Name the session (the name as kept); ValueError for an empty name."""
    name = clean_name(text)
    write_session_meta(paths.checkpoint_dir(session_id), **{NAME_KEY: name})
    return name


def note_cwd(paths: WavePaths, session_id: str) -> None:
    """Remember the folder the session runs in (where another project's resume opens it)."""
    folder = paths.checkpoint_dir(session_id)
    cwd = str(paths.project_root)
    if read_session_meta(folder).get(CWD_KEY) != cwd:
        with contextlib.suppress(OSError):
            write_session_meta(folder, **{CWD_KEY: cwd})


def session_cwd(paths: WavePaths, session_id: str) -> Path | None:
    for sid in reversed(session_chain(paths, session_id)):
        cwd = read_session_meta(paths.checkpoint_dir(sid)).get(CWD_KEY)
        if isinstance(cwd, str) and Path(cwd).is_dir():
            return Path(cwd)
    return None


def decoded_project_root(project_id: str) -> Path | None:
    """The folder a project id was made from, when it still exists and encodes back to it
    (a `-` in the id may have been a `/` or a `-`: only an existing folder settles it)."""
    parts = project_id.split("-")
    found = _decode(Path("/"), parts, project_id)
    return found


def _decode(base: Path, parts: list[str], project_id: str) -> Path | None:
    if not parts:
        return base if encode_project_id(str(base)) == project_id else None
    for n in range(1, len(parts) + 1):
        for name in {"-".join(parts[:n]), "-".join(parts[:n]).replace("_", " ")}:
            candidate = base / name
            if candidate.is_dir():
                found = _decode(candidate, parts[n:], project_id)
                if found is not None:
                    return found
    return None
