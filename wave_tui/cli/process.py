"""What every wave command shares about its process: the end of start-up (the collector comes
back, what start-up built is frozen), a reader of its output that went away, and argparse that
notices one. Below `main` and the commands it runs, so none of them imports `main`."""

from __future__ import annotations

import argparse
import gc
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

# 128 + SIGPIPE: what `git log | head` ends with when its reader goes (`set -o pipefail` shows
# it); nothing is printed. Python ignores SIGPIPE, so the closed pipe arrives as BrokenPipeError.
EXIT_CLOSED_PIPE = 141


class PipeParser(argparse.ArgumentParser):
    """argparse, except that help or usage meeting a closed pipe raises BrokenPipeError (which
    ends the command quietly) instead of being dropped while the command carries on."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        if message:
            (file or sys.stderr).write(message)


def output_closed() -> int:
    """The reader of stdout (or stderr) has gone: both now write to /dev/null, so no later
    write or flush fails again, and the command ends with EXIT_CLOSED_PIPE and nothing said."""
    import contextlib
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(AttributeError, OSError, ValueError):
                os.dup2(devnull, stream.fileno())
    finally:
        os.close(devnull)
    return EXIT_CLOSED_PIPE


def without_pydantic_plugins() -> None:
    """Tell pydantic that this process has no plugins, before its first model is built.

    pydantic looks for third-party plugins (the `pydantic` entry point group) when it builds its
    first model: it imports `importlib.metadata` (`zipfile`, `csv` with it) and reads every
    installed distribution's entry points, ~0.02 G instructions of a 1.6 G `wave -p` run, to
    find none. wave's own settings and messages are not meant for a plugin to watch
    (one that logs validated data would log settings and conversations), so in a process the
    command owns the loader is the empty one pydantic itself uses when plugins are disabled.
    Not for the SDK: a program that imports wave may have plugins for its own models.
    """
    import types

    if "pydantic.plugin._loader" in sys.modules:  # pydantic is already running its own
        return
    loader = types.ModuleType("pydantic.plugin._loader")
    loader.get_plugins = tuple  # type: ignore[attr-defined]  # `get_plugins()` -> ()
    sys.modules["pydantic.plugin._loader"] = loader


# Container allocations between two young collections once start-up is over (CPython's
# default is 700). The first request still imports the HTTP stack (httpcore, anyio, h11):
# at 700 that alone made ~30 collections, ≈ 5 ms of a `wave -p` turn; at this size there are
# a few, ≈ 0.3 ms. Only cyclic garbage waits for a collection (the rest is freed at once), so
# the young generation stays small in memory, and each pass is still ~1 ms.
RUN_GC_THRESHOLD = 50_000


def startup_finished() -> None:
    """Collect cycles again (the run's own garbage is worth collecting). What start-up built —
    modules, classes, settings, the session's memory — lives as long as the process: it is
    frozen out of every later collection, which would otherwise walk all of it (a full one
    costs 70-110 ms at 10k rules, inside whichever request it lands in)."""
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(RUN_GC_THRESHOLD, older, oldest)
    gc.enable()
