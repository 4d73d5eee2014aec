"""What the user typed in the app, kept across sessions per project (`~/.wave/history.jsonl`).

One JSON object a line: `{"project": "/abs/root", "text": "..."}`. Appending a line is the only
write (one `write` on an `O_APPEND` descriptor), so several running apps never lose each other's
entries. What was typed can hold anything (a `# …` memory, a pasted key): the file is the
user's alone (0600), and a text the memory secret guard would refuse is never written.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from wave_tui.memory.secrets import secret_refusal

HISTORY_KEEP = 500  # entries loaded per project (the newest)
HISTORY_MODE = 0o600


# req: UX19
def load_history(file: Path, project: Path) -> list[str]:
    """This project's entries, oldest first; an unreadable file or line is skipped."""
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    wanted = str(project)
    entries: list[str] = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("project") == wanted:
            text = record.get("text")
            if isinstance(text, str) and text:
                entries.append(text)
    return entries[-HISTORY_KEEP:]


# req: UX19
# req: FH14
def append_history(file: Path, project: Path, text: str) -> None:
    """One entry at the end of the file, unless it holds a secret; the file is kept 0600 (one
    made by an older version with the umask's mode is narrowed at the next entry)."""
    if secret_refusal(text) is not None:
        return
    file.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"project": str(project), "text": text}, ensure_ascii=False) + "\n"
    fd = os.open(file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, HISTORY_MODE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) != HISTORY_MODE:
            os.fchmod(fd, HISTORY_MODE)
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)
