"""Start-up's objects are frozen out of later cyclic collections (a full collection walked every
module, class and rule start-up made, inside the first request)."""

from __future__ import annotations

import gc

from wave_tui.cli.process import startup_finished


def test_startup_finished_freezes_what_start_up_built_and_collects_again() -> None:
    gc.disable()
    try:
        before = gc.get_freeze_count()
        startup_finished()
        assert gc.isenabled()
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()
        gc.enable()
