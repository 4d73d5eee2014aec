"""The bubblewrap command line a sandboxed Bash command runs under (Linux).

The root is bound read-only, `/dev` and `/proc` are fresh, `/tmp` is a private tmpfs (unless the
caller wants none), the writable folders are bound read-write, the network is unshared when it
must be off (no interface but a down loopback: every connection fails, loopback included), and
the command gets a PID namespace of its own that dies with wave (`--die-with-parent`: when wave
is gone, so is pid 1 of the sandbox and with it every process in it, `setsid` or not). The
configuration inside the writable folders is bound read-only over them (`protected.py`), and no
Unix socket is reachable but the listed ones (`unix_sockets.py`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from wave_tui.features.sandbox.unix_sockets import socket_args, with_filter

# `bwrap` is looked for once per process: installing it needs a restart of wave.
_FOUND: list[str | None] = []


def bwrap_path() -> str | None:
    """The `bwrap` executable, or None where there is none (not Linux, not installed)."""
    if not _FOUND:
        _FOUND.append(shutil.which("bwrap"))
    return _FOUND[0]


# req: SB1
def sandbox_argv(
    bwrap: str,
    writable: Sequence[Path],
    *,
    network: bool,
    private_tmp: bool = True,
    protect: Sequence[str] = (),
    allowed_sockets: Sequence[str] = (),
    environ: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """`bwrap …` up to and including `--`, ready to take `bash -c COMMAND` after it. `protect`
    are bwrap arguments laid over the writable binds (what stays read-only inside them)."""
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    if private_tmp:
        argv += ["--tmpfs", "/tmp"]
    sockets, program = socket_args(allowed_sockets, os.environ if environ is None else environ)
    argv += sockets
    for folder in writable:
        argv += ["--bind-try", str(folder), str(folder)]
    argv += protect
    if not network:
        argv.append("--unshare-net")
    argv += ["--unshare-pid", "--die-with-parent", "--new-session", "--"]
    return with_filter(argv, program) if program is not None else tuple(argv)
