"""The tool protocol shared by every built-in tool."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from wave_tui.config.clock import Clock, system_clock
from wave_tui.config.records import record
from wave_tui.files.read_state import ReadState
from wave_tui.files.real_paths import resolve_tool_path
from wave_tui.files.text_files import ToolError as ToolError
from wave_tui.llm.types import ImagePart, ToolSpec


@record(frozen=False)
class ToolContext:
    workdir: Path
    read_state: ReadState
    abort: asyncio.Event = field(default_factory=asyncio.Event)
    env: Mapping[str, str] | None = None  # extra environment for Bash (settings `env`)
    clock: Clock = system_clock
    # Set for auto-approved read-only commands: their output file may not grow past this (X14).
    output_limit_bytes: int | None = None
    # The real path the permission layer decided on (a path tool's `CallFacts.target`): a write
    # goes there or nowhere, whatever the path argument resolves to by the time it runs.
    checked_path: Path | None = None
    # The argv a Bash command runs under (the sandbox's `bwrap …`); empty: run as it is.
    command_prefix: tuple[str, ...] = ()


@record
class ToolContexts:
    """The one place a tool context is made (the main agent, a subagent, the extraction fork):
    where the tools run, whose read state they use, the settings' environment, and how the
    permission answer narrows one call (extra environment, a cap on its output file)."""

    workdir: Path
    read_state: Callable[[], ReadState]
    env: Callable[[], Mapping[str, str] | None] = lambda: None
    clock: Clock = system_clock

    def build(
        self,
        abort: asyncio.Event,
        extra_env: Mapping[str, str] | None = None,
        output_limit_bytes: int | None = None,
        checked_path: Path | None = None,
        command_prefix: tuple[str, ...] = (),
    ) -> ToolContext:
        return ToolContext(
            workdir=self.workdir,
            read_state=self.read_state(),
            abort=abort,
            env={**(self.env() or {}), **(extra_env or {})},
            clock=self.clock,
            output_limit_bytes=output_limit_bytes,
            checked_path=checked_path,
            command_prefix=command_prefix,
        )


# The model's id of the call whose tool runs in this task ("" outside one): what a tool reports
# while it runs (an MCP server's progress, which names no call of the model's) goes on that row.
RUNNING_CALL: ContextVar[str] = ContextVar("wave_running_call", default="")


@record(frozen=False)
class ToolResult:
    content: str
    is_error: bool = False
    summary: str = ""  # one short line for the UI ("Read 120 lines")
    # Files whose *content* entered the context (Read, Grep content lines, Write, Edit): rule triggers.
    context_paths: list[Path] = field(default_factory=list)
    # Files successfully read by the Read tool (nested-memory trigger, D1).
    read_paths: list[Path] = field(default_factory=list)
    # Files successfully written (Write/Edit).
    written_paths: list[Path] = field(default_factory=list)
    # sha256 of the bytes the tool itself left in each written file: what the agent wrote,
    # whatever an observer that runs later (a language server's wait, a hook) sees on disk.
    written_hashes: dict[Path, str] = field(default_factory=dict)
    # The change written (Edit, Write over a file) as a unified diff: for the user, never sent.
    diff: str = ""
    # Images for the model beside `content` (a Read of an image), encoded once.
    images: list[ImagePart] = field(default_factory=list)


class Tool(Protocol):
    name: str
    description: str
    read_only: bool  # True when the tool can never change anything

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON schema of the arguments (a plain attribute satisfies it too)."""
        ...

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


@runtime_checkable
class ValidatesFirst(Protocol):
    """A tool that can tell, before anyone is asked, that it would refuse a call (an Edit of a
    file not read yet, an old_string that is not there): the refusal goes to the model at once,
    so the user is never asked to approve a change that cannot happen."""

    async def refusal(self, args: dict[str, Any], ctx: ToolContext) -> str | None: ...


class BaseTool:
    """Shared `run`: a ToolError raised anywhere in `_run` becomes a clean error result.

    A subclass gives `parameters` itself (MCP, Skill) or derives it from a typed arguments
    class (`arguments.TypedTool`)."""

    name: str
    description: str
    read_only: bool

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            return await self._run(args, ctx)
        except ToolError as exc:
            return error_result(str(exc))
        except (OSError, ValueError, RuntimeError, TypeError, LookupError) as exc:
            # Odd paths (NUL bytes, symlink loops) or argument shapes: the model is told, the
            # turn goes on.
            return error_result(f"{self.name} failed: {type(exc).__name__}: {exc}")

    async def _run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise NotImplementedError


def write_text_and_stat(path: Path, text: str) -> int:
    """Atomic replace (blocking; run in a thread); returns the new mtime_ns for the read state.

    `path` is a real path: it is reached without following links (`files/no_follow.py`), so a
    folder swapped for a symlink after the check fails the write instead of redirecting it."""
    from wave_tui.files.no_follow import write_text_no_follow

    return write_text_no_follow(path, text)


def spec_of(tool: Tool) -> ToolSpec:
    return ToolSpec(name=tool.name, description=tool.description, parameters=tool.parameters)


def write_target(raw: str, ctx: ToolContext) -> Path:
    """Where a Write or Edit goes: the path the permission layer checked. When the argument
    resolves elsewhere now (a folder swapped for a link meanwhile), the write is refused."""
    path = resolve_path(raw, ctx.workdir)
    if ctx.checked_path is not None and path != ctx.checked_path:
        raise ToolError(
            f"{ctx.checked_path} changed on disk since it was checked (a folder on its path is "
            "now a link); nothing was written."
        )
    return path


def resolve_path(raw: str, workdir: Path) -> Path:
    """`resolve_tool_path` for a tool, with a model-facing error for an unusable path."""
    path = resolve_tool_path(raw, workdir)
    if path is None:
        raise ToolError(f"Resolving the path {raw!r} failed: it is not a usable path.")
    return path


def error_result(message: str, summary: str = "") -> ToolResult:
    return ToolResult(content=message, is_error=True, summary=summary or message.splitlines()[0])
