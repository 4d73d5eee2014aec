"""Shell commands' process groups and output: signalling and ending a group, and cutting
over-long output to its two ends — shared by Bash in the foreground, the background runner and
the `!cmd` shell."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

MAX_OUTPUT_CHARS = 30_000
KILL_GRACE_S = 2.0  # for bash itself to exit after SIGTERM
# For the rest of the group. Short: orphans the container's init never reaps stay "alive" as zombies.
GROUP_GRACE_S = 0.5


def signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def kill_process_group(pgid: int, proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the group, then SIGKILL whatever is still there after a grace period."""
    signal_group(pgid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(KILL_GRACE_S):  # not wait_for: see llm/client.py _open
            await proc.wait()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + GROUP_GRACE_S
    while group_alive(pgid) and loop.time() < deadline:
        await asyncio.sleep(0.05)
    signal_group(pgid, signal.SIGKILL)
    await proc.wait()


def join_ends(head: str, tail: str, omitted: str) -> str:
    return f"{head}\n\n... [{omitted} of output truncated] ...\n\n{tail}"


def truncate_output(text: str) -> str:
    """Keep the head and tail of over-long output: errors and summaries live at the ends."""
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    half = MAX_OUTPUT_CHARS // 2
    return join_ends(text[:half], text[-half:], f"{len(text) - 2 * half} characters")
