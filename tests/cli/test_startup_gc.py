"""Start-up's objects are frozen out of later cyclic collections (a full collection walked every
module, class and rule start-up made, inside the first request), and the young generation is
collected less often from then on: cycles are still collected."""

from __future__ import annotations

import gc
import weakref

from wave_tui.cli.process import RUN_GC_THRESHOLD, startup_finished


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_startup_finished_freezes_what_start_up_built_and_collects_again() -> None:
    thresholds = gc.get_threshold()
    gc.disable()
    try:
        before = gc.get_freeze_count()
        startup_finished()
        assert gc.isenabled()
        assert gc.get_freeze_count() > before
        assert gc.get_threshold() == (RUN_GC_THRESHOLD, *thresholds[1:])
        # A cycle dropped now is collected once the young generation fills, without a call.
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        assert gone() is not None  # only a collection frees a cycle
        keep = [[] for _ in range(RUN_GC_THRESHOLD * 2)]
        assert gone() is None and len(keep) == RUN_GC_THRESHOLD * 2
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        gc.enable()
