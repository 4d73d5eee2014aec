"""The input line's door: `@path` attachments and completion, slash commands, and the
project's input history (UX16, UX19). A `!cmd` goes to the turn queue as it is: the turn
runner runs it (`agent.local_shell.LocalShell`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.agent import events as ev
from wave_tui.agent.commands import CommandOutput, CommandResult, parse_command
from wave_tui.agent.local_shell import shell_command
from wave_tui.features.commands.inline_input import attach_files, complete_path
from wave_tui.session.core import SessionCore

if TYPE_CHECKING:
    from wave_tui.features.images.clipboard import ClipboardPaste
    from wave_tui.session.completion import CommandChoice


class InputAccess:
    def __init__(self, core: SessionCore) -> None:
        self._core = core

    # req: UX16
    def with_attachments(self, text: str) -> str:
        """`text` with the `@path` files it names attached (a slash command or a `!cmd` stays
        as it is)."""
        if "@" not in text or parse_command(text) is not None or shell_command(text) is not None:
            return text
        service = self._core.agent()
        attached = attach_files(text, service.workdir, service.read_state)
        for note in attached.notes:  # never cut silently: the user hears what was left out
            self._core.emit(ev.Notice("warning", note))
        return attached.text

    def _workdir(self) -> Path:
        """Where `@path` points: the session's working directory (a worktree it entered), else
        the project."""
        service = self._core.service
        return service.workdir if service is not None else self._core.paths.project_root

    def pasted_image(self, text: str) -> str | None:
        """A pasted image file's path as the `@path` that attaches it (None: not one)."""
        from wave_tui.features.images.clipboard import pasted_image_reference

        return pasted_image_reference(text, self._workdir())

    async def paste_clipboard_image(self) -> ClipboardPaste:
        """Ctrl+V: the clipboard's image saved and referenced as `@path`, else why not."""
        from wave_tui.features.images.clipboard import paste_clipboard_image

        service = self._core.service
        environ = service.options.environ if service is not None else None
        return await paste_clipboard_image(self._core.paths.pasted_images, environ)

    def complete_path(self, text: str) -> tuple[str, tuple[str, ...]] | None:
        """Tab on a trailing `@partial` (fuzzy), for the input: files, and MCP resources."""
        files = complete_path(text, self._workdir())
        service = self._core.service
        if files is None or service is None:
            return files
        from wave_tui.features.mcp.wiring import mcp_of

        wiring = mcp_of(service)
        return wiring.complete_mention(text, files) if wiring is not None else files

    async def run_command(self, text: str) -> CommandResult:
        """Run a slash command now; its answer is local (not a turn, nothing sent to the
        model). A command that expands to a prompt is returned, not run: `send` it."""
        service = self._core.service
        if service is None:
            return CommandOutput("the agent could not start", is_error=True)
        return await service.commands.dispatch(text)

    def command_choices(self, prefix: str = "") -> list[CommandChoice]:
        """Commands starting with `prefix`, with descriptions (the `/` completion popup)."""
        service = self._core.service
        from wave_tui.session.completion import command_choices

        return command_choices(service.commands.complete(prefix)) if service is not None else []

    # req: UX19
    async def history(self) -> list[str]:
        """What was typed in this project before (oldest first), for Up / Down and Ctrl+R."""
        paths = self._core.paths
        from wave_tui.session.input_history import load_history

        return await asyncio.to_thread(load_history, paths.input_history, paths.project_root)

    async def remember(self, text: str) -> None:
        paths = self._core.paths
        from wave_tui.session.input_history import append_history

        await asyncio.to_thread(append_history, paths.input_history, paths.project_root, text)
