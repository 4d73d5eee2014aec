"""Process checks the tests share: is a pid still a running process?"""

from __future__ import annotations

from pathlib import Path


def alive(pid: int) -> bool:
    """A process that exists and is not a zombie (a zombie reparented to an init that never
    reaps counts as gone; so does one reaped while we look)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
