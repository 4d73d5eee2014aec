"""No Unix socket from the sandbox unless listed (`sandbox.allowUnixSockets`).

A Unix socket on the host is a door out of any sandbox that can reach its path: the Docker
socket runs a container as root, the D-Bus session bus starts programs, an agent's socket signs
with the user's keys. Shutting the network off does not close them (a path socket is a file).
So a seccomp filter makes `socket(AF_UNIX, …)` fail with EPERM inside the sandbox (pairs made
by `socketpair` stay: they reach nothing outside). A filter cannot tell one socket path from
another, so with sockets listed the filter is left off and the folders where a session's sockets
live (`$XDG_RUNTIME_DIR`, `/run`'s well-known ones) are hidden instead, the listed ones bound back.

bwrap reads the filter from a file descriptor; bash's process substitution gives it one from the
program's bytes, with no file written anywhere.
"""

from __future__ import annotations

import os
import platform
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path

# linux/filter.h, linux/seccomp.h, linux/audit.h
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_EPERM = 0x00050000 | 1
_AF_UNIX = 1
_X32_BIT = 0x40000000
# machine -> (AUDIT_ARCH_*, the `socket` syscall number)
_ARCHES = {
    "x86_64": (0xC000003E, 41),
    "aarch64": (0xC00000B7, 198),
}
FILTER_FD = 9
# Variables that name a host socket: a program would try them and fail anyway, but a listed one
# keeps its variable.
SOCKET_VARIABLES = ("SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST", "GPG_AGENT_INFO")
# Where host sockets are, hidden when the filter is off because sockets are listed.
WELL_KNOWN_SOCKETS = (
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/dbus/system_bus_socket",
    "/var/run/dbus/system_bus_socket",
    "/run/podman/podman.sock",
    "/run/containerd/containerd.sock",
)


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The seccomp program (classic BPF) refusing AF_UNIX sockets, or None on a machine it does
    not know. Another ABI on the same kernel (32-bit, x32) gets EPERM for every call: its
    socket calls have other numbers the filter would not see."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, socket_nr = arch
    program = [
        _insn(_LD_W_ABS, 4),  # seccomp_data.arch
        _insn(_JEQ_K, audit_arch, 0, 5),  # another ABI -> deny
        _insn(_LD_W_ABS, 0),  # seccomp_data.nr
        _insn(_JGE_K, _X32_BIT, 3, 0),  # x32 -> deny
        _insn(_JEQ_K, socket_nr, 0, 3),  # not socket() -> allow
        _insn(_LD_W_ABS, 16),  # args[0], the domain (low 32 bits: the kernel's int)
        _insn(_JEQ_K, _AF_UNIX, 0, 1),  # AF_UNIX -> deny, else allow
        _insn(_RET_K, _RET_EPERM),
        _insn(_RET_K, _RET_ALLOW),
    ]
    return b"".join(program)


def with_filter(argv: Sequence[str], program: bytes) -> tuple[str, ...]:
    """`argv` (a bwrap command taking `--seccomp FILTER_FD`) run by bash with the program on
    that descriptor."""
    escaped = "".join(f"\\x{b:02x}" for b in program)
    script = f'exec "$@" {FILTER_FD}< <(printf "$0")'
    return ("bash", "-c", script, escaped, *argv)


# req: HR6
def socket_args(
    allowed: Sequence[str], environ: Mapping[str, str]
) -> tuple[list[str], bytes | None]:
    """The bwrap arguments and the seccomp program (None: no filter) for the listed sockets."""
    args = [arg for name in SOCKET_VARIABLES for arg in ("--unsetenv", name)]
    if not allowed:
        program = unix_socket_filter()
        if program is not None:
            return [*args, "--seccomp", str(FILTER_FD)], program
    kept = {str(Path(p)) for p in allowed}
    args = [
        arg
        for name in SOCKET_VARIABLES
        if not _names_allowed(environ.get(name, ""), kept)
        for arg in ("--unsetenv", name)
    ]
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isdir(runtime):
        args += ["--tmpfs", runtime]
    for path in WELL_KNOWN_SOCKETS:
        if path not in kept and os.path.exists(path) and not os.path.isdir(path):
            args += ["--ro-bind", "/dev/null", path]
    for path in sorted(kept):
        args += ["--bind-try", path, path]
    return args, None


def _names_allowed(value: str, kept: set[str]) -> bool:
    """Does a socket variable's value name a listed socket (`unix:path=…` for D-Bus)?"""
    return any(path in value for path in kept) if value else False
