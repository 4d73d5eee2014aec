"""`!cmd` in a message: a queued turn of its own, never a model turn (UX16, CV8).

The command runs in `$SHELL` (else `/bin/sh`) at the project root: its output streams to the
front end as it comes, a stop (Esc) ends its whole process group, and the command with its
output becomes a user message the model sees next turn.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.agent.events import Emit
from wave_tui.config.records import record
from wave_tui.llm.types import Message, new_id
from wave_tui.tools.processes import kill_process_group

SHELL_TIMEOUT_S = 120.0
SHELL_OUTPUT_MAX = 30_000  # characters of output kept in the message
SHELL_READ_BYTES = 4_096  # one read of the command's output: one streamed event at most
SHELL_OUTPUT_CUT = "\n… (output cut)"
SHELL_META = "shell"  # the message's meta key: the run as the chat shows it again on restore


SHELL_ENDINGS: dict[object, ev.ShellEnding] = {
    "exited": "exited",
    "timed out": "timed out",
    "interrupted": "interrupted",
}


@record
class ShellRun:
    command: str
    output: str
    exit_code: int | None  # None: it did not exit by itself (see `ending`)
    ending: ev.ShellEnding = "exited"

    def _status(self) -> str:
        return f"exit code {self.exit_code}" if self.ending == "exited" else self.ending

    def _header(self) -> str:
        return f"I ran `{self.command}` ({self._status()}):\n```\n"

    def as_message(self) -> str:
        return f"{self._header()}{self.output.rstrip()}\n```"

    def message(self) -> Message:
        """The user message the model gets; its meta lets the chat show the run as a command
        block again (it is never sent)."""
        meta = {"command": self.command, "exitCode": self.exit_code, "ending": self.ending}
        return Message(role="user", content=self.as_message(), meta={SHELL_META: meta})


def shell_run_of(message: Message) -> ShellRun | None:
    """The `!cmd` run a user message records (None for any other message)."""
    meta: Any = message.meta.get(SHELL_META)
    if not isinstance(meta, dict) or not isinstance(meta.get("command"), str):
        return None
    code = meta.get("exitCode")
    ending = SHELL_ENDINGS.get(meta.get("ending"), "exited")
    run = ShellRun(meta["command"], "", code if isinstance(code, int) else None, ending)
    header, content = run._header(), message.content or ""
    if content.startswith(header) and content.endswith("\n```"):
        return ShellRun(run.command, content[len(header) : -len("\n```")], run.exit_code, ending)
    return run


def shell_command(text: str) -> str | None:
    """`!cmd` -> `cmd`; anything else -> None."""
    stripped = text.strip()
    if not stripped.startswith("!") or not stripped[1:].strip():
        return None
    return stripped[1:].strip()


class _Output:
    """The command's output as it arrives: kept up to `SHELL_OUTPUT_MAX`, each piece passed on."""

    def __init__(self, on_output: Callable[[str], None] | None) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._parts: list[str] = []
        self._size = 0
        self._cut = False
        self._on_output = on_output

    def feed(self, data: bytes, final: bool = False) -> None:
        text = self._decoder.decode(data, final)
        if not text or self._cut:
            return
        room = SHELL_OUTPUT_MAX - self._size
        if len(text) > room:
            text, self._cut = text[:room], True
        self._parts.append(text)
        self._size += len(text)
        if self._on_output is not None and text:
            self._on_output(text)

    @property
    def text(self) -> str:
        return "".join(self._parts) + (SHELL_OUTPUT_CUT if self._cut else "")


# req: UX16
async def run_shell(
    command: str,
    root: Path,
    env: dict[str, str] | None = None,
    on_output: Callable[[str], None] | None = None,
) -> ShellRun:
    """Run `command`; `on_output` gets its output as it comes. Cancelled, the command's whole
    process group is ended before the cancellation goes on."""
    shell = os.environ.get("SHELL") or "/bin/sh"
    process = await asyncio.create_subprocess_exec(
        shell,
        "-c",
        command,
        cwd=root,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, **(env or {})},
        start_new_session=True,  # its own group: a stop reaches every process it started
    )
    output = _Output(on_output)
    stream = process.stdout
    assert stream is not None  # stdout=PIPE
    try:
        async with asyncio.timeout(SHELL_TIMEOUT_S):  # not wait_for: see llm/client.py _open
            while data := await stream.read(SHELL_READ_BYTES):
                output.feed(data)
            output.feed(b"", final=True)
            await process.wait()
    except TimeoutError:
        await _end_group(process)
        return ShellRun(command, output.text, None, "timed out")
    except asyncio.CancelledError:
        await _end_group(process)
        raise
    return ShellRun(command, output.text, process.returncode)


async def _end_group(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the command's group, SIGKILL what is left after a grace period — to the end,
    even when a second stop (another Esc) arrives meanwhile."""
    ending = asyncio.ensure_future(kill_process_group(process.pid, process))
    while not ending.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(ending)


class LocalShell:
    """`!cmd` as the turn queue runs it (CV8): started and streamed as events, recorded as the
    user's message. A stop of the turn (Esc) kills the command; what it printed until then is
    recorded as an interrupted run."""

    def __init__(
        self,
        root: Callable[[], Path],
        env: Callable[[], dict[str, str] | None],
        add: Callable[[Message], None],
        emit: Emit,
    ) -> None:
        self._root = root
        self._env = env
        self._add = add
        self._emit = emit

    # req: CV8
    async def run(self, command: str) -> ShellRun:
        run_id = new_id("sh")
        self._emit(ev.ShellStarted(run_id, command))
        shown: list[str] = []

        def on_output(text: str) -> None:
            shown.append(text)
            self._emit(ev.ShellOutput(run_id, text))

        try:
            run = await run_shell(command, self._root(), self._env(), on_output)
        except asyncio.CancelledError:
            # The turn was stopped: the group is gone; the run is recorded, the turn ends here
            # (the queue's stop, like a model turn's, ends in a result, not an exception).
            run = ShellRun(command, "".join(shown), None, "interrupted")
        message = run.message()
        self._add(message)
        self._emit(ev.ShellFinished(run_id, command, run.output, run.exit_code, run.ending))
        self._emit(ev.UserMessageAdded(message))
        return run
