"""A storm of file events in one folder, as a build or a file-syncing tool makes them: other
processes that create, rename and delete files and swap a folder and a symlink as fast as they
can. Tests start them with `storms(folder)` (real subprocesses) and stop them on leaving.

Each is bounded even if nobody stops it: `MAX_OPS` operations or `MAX_SECONDS`, whichever first,
and it stops as soon as its parent is gone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import TracebackType
from typing import Literal

MAX_OPS = 50_000_000
MAX_SECONDS = 300.0
READY = "storming"
# One Python process makes events about as fast as Python reads them: the swapper's renames
# also wait now and then for the file system's journal, so the churners (an open for writing
# and its close: an event each, and nothing for the journal) keep the queue full meanwhile.
CHURNERS = 3

Kind = Literal["swap", "churn"]


def storm(
    folder: Path, kind: Kind, max_ops: int = MAX_OPS, max_seconds: float = MAX_SECONDS
) -> int:
    """Churn `folder` until a bound is reached or the parent went away; returns the op count."""
    parent = os.getppid()
    deadline = time.monotonic() + max_seconds
    tag = f"storm{os.getpid()}"  # several storms share a folder
    a, b = folder / f"{tag}-a", folder / f"{tag}-b"
    d1, d2 = folder / f"{tag}-dir", folder / f"{tag}-dir-old"
    link, tmp_link = folder / f"{tag}-link", folder / f"{tag}-link.tmp"
    a.write_text("x")
    d1.mkdir(exist_ok=True)
    here = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    # The kernel merges an event only into an identical one at the queue's tail: files take turns.
    names = [f"{tag}-w{i}" for i in range(8)]
    for name in names:
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT, dir_fd=here))
    ops = 0
    print(READY, flush=True)
    while ops < max_ops:
        for _ in range(50):
            if kind == "swap":
                os.rename(a, b)
                os.rename(b, a)
                os.rename(d1, d2)  # the folder swap: a folder's path moves away and back
                os.rename(d2, d1)
                os.symlink(d1, tmp_link)  # the symlink swap (`ln -sfn`): create, rename over
                os.rename(tmp_link, link)
                fresh = folder / f"{tag}-{ops % 64}"
                fresh.write_bytes(b"")
                fresh.unlink()
                ops += 8
            for name in names:
                os.close(os.open(name, os.O_WRONLY, dir_fd=here))
            ops += len(names)
        if os.getppid() != parent or time.monotonic() > deadline:
            break
    os.close(here)
    return ops


class FileStorm:
    """One storm as a subprocess: started (and churning) on entering, stopped on leaving."""

    def __init__(self, folder: Path, kind: Kind) -> None:
        self.folder = folder
        self.kind = kind
        self._proc: subprocess.Popen[str] | None = None

    def __enter__(self) -> FileStorm:
        root = str(Path(__file__).resolve().parent.parent)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tests.file_storm", str(self.folder), self.kind],
            cwd=root,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": root},
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()  # blocks until its first event is on its way
        assert line.strip() == READY, f"the storm did not start: {line!r}"
        return self

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        assert self._proc is not None
        self._proc.kill()
        self._proc.wait()
        assert self._proc.stdout is not None
        self._proc.stdout.close()


@contextmanager
def storms(folder: Path, churners: int = CHURNERS) -> Iterator[None]:
    """A swapper and `churners` churners in `folder`, all storming inside the block."""
    with ExitStack() as stack:
        stack.enter_context(FileStorm(folder, "swap"))
        for _ in range(churners):
            stack.enter_context(FileStorm(folder, "churn"))
        yield


if __name__ == "__main__":
    storm(Path(sys.argv[1]), "swap" if sys.argv[2] == "swap" else "churn")
