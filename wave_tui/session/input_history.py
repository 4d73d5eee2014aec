"""What the user typed in the app, kept across sessions per project (`~/.wave/history.jsonl`).

One JSON object a line: `{"project": "/abs/root", "text": "..."}`. Appending a line is the only
write, so several running apps never lose each other's entries.
"""

from __future__ import annotations

import json
from pathlib import Path

HISTORY_KEEP = 500  # entries loaded per project (the newest)


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
def append_history(file: Path, project: Path, text: str) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"project": str(project), "text": text}, ensure_ascii=False)
    with file.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
