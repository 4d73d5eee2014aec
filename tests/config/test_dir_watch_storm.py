"""A drain ends whatever another process does to the watched folders (HR13).

The storm is real: processes churning the folder as fast as they can (`tests/file_storm.py`).
A drain that reads until the queue is empty never returns while they outpace it; the guard
below waits for each drain on a thread and fails the test if one never comes back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tests.file_storm import storms
from wave_tui.config.dir_watch import DRAIN_BYTES, DirWatch

T = TypeVar("T")
# Not a timing assert: a drain takes microseconds; this only turns a hang into a failure.
HANG_GUARD_S = 60.0


def returns(fn: Callable[[], T]) -> T:
    """`fn()`, run on a thread; fails the test if it never returns."""
    done = threading.Event()
    out: list[T] = []

    def run() -> None:
        out.append(fn())
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(HANG_GUARD_S), "drain never returned while the storm ran"
    return out[0]


@pytest.mark.req("HR13")
def test_hr13_each_drain_returns_while_other_processes_churn_the_folder(tmp_path: Path) -> None:
    watch = DirWatch()
    assert watch.watch(tmp_path)
    with storms(tmp_path):
        results = [returns(watch.drain) for _ in range(30)]
    # Every answer is usable: the storm's names in the folder, or "look at everything".
    for changed in results:
        assert changed is None or all(p.parent == tmp_path for p in changed)
    watch.close()


@pytest.mark.req("HR13")
def test_hr13_more_than_one_read_holds_is_an_overflow_then_the_rest_is_read(
    tmp_path: Path,
) -> None:
    watch = DirWatch()
    assert watch.watch(tmp_path)
    count = 2 * DRAIN_BYTES // 32  # two reads' worth of events at least
    for i in range(count):
        (tmp_path / f"f{i:06d}").touch()
    (tmp_path / "last.md").write_text("the last change of the burst\n")
    # The burst does not fit one read: the caller must look at everything.
    assert watch.drain() is None
    # What stays queued is read by the next drains, a bounded piece each, until it is all read.
    leftovers = 0
    while (changed := watch.drain()) is None:
        leftovers += 1
        assert leftovers < count  # each drain takes a bounded piece off a finite queue
    assert tmp_path / "last.md" in changed  # the tail of the burst, named at last
    (tmp_path / "after.md").write_text("x")
    assert watch.drain() == {tmp_path / "after.md"}
    watch.close()


@pytest.mark.req("HR13")
def test_hr13_a_folder_moved_away_under_a_full_queue_is_watched_anew(tmp_path: Path) -> None:
    """A full read is not parsed (the caller looks at everything anyway); the one thing its
    events would have said, a watched folder moved away, is still known."""
    watch = DirWatch()
    folder = tmp_path / "rules"
    folder.mkdir()
    assert watch.watch(folder)
    for i in range(2 * DRAIN_BYTES // 32):
        (folder / f"f{i:06d}").touch()
    folder.rename(tmp_path / "rules-old")
    folder.mkdir()  # a new folder under the old name
    assert watch.drain() is None
    assert watch.watch(folder)  # the old watch was dropped: the name is watched again
    while watch.drain() is None:  # the rest of the old folder's burst
        pass
    (folder / "new.md").write_text("x")
    assert watch.drain() == {folder / "new.md"}
    watch.close()
