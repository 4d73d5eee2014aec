"""The `Agent` tool: hand a task to a subagent and return its final text (AG1, AG2).

Running a subagent (its own loop, context, transcript and tool list) is the injected
`SubagentRunner`'s job; this tool resolves the type, bounds how many run at once, and turns
the runner's answer (or failure) into the tool result.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Annotated, Any, Protocol

from wave_tui.features.subagents.definitions import (
    AGENT_TOOL_NAME,
    SubagentCatalog,
    SubagentDefinition,
)
from wave_tui.tools.arguments import Arg, TypedTool, schema_of, tool_arguments
from wave_tui.tools.background import BackgroundManager, new_agent_task_id
from wave_tui.tools.base import ToolContext, ToolError, ToolResult
from wave_tui.tools.foreground import ForegroundTask

SUBAGENT_CONCURRENCY = 4  # Agent calls of one reply running at the same time

DESCRIPTION_HEAD = """\
Launch a subagent to handle a self-contained task on its own: it has its own context and tools, \
works without seeing this conversation, and returns one final report as the result. Use it for \
broad searches and research that would flood this context, or for independent pieces of work \
(several Agent calls in one reply run concurrently). Write a complete, self-contained prompt: \
what to do, what to return. The subagent cannot ask you or the user anything, and its permissions are never wider than yours (read-only types cannot change files at all). Its final message is the result you get back: tell it what that message should contain, and summarise it for the user yourself, since they do not see it.
- description: 3-5 words for the user.
- prompt: the full task.
- subagent_type: one of the types below.

Available types:"""


class SubagentRunner(Protocol):
    async def run(
        self,
        definition: SubagentDefinition,
        prompt: str,
        description: str,
        on_progress: Callable[[str], None] | None = None,
    ) -> str:
        """Run the subagent to its end and return its final text; `on_progress` gets a line
        per step (a background agent's output file)."""
        ...


def describe_types(catalog: SubagentCatalog) -> str:
    return "\n".join(f"- {d.name}: {d.description}" for d in catalog.definitions)


@tool_arguments
class AgentArgs:
    description: Annotated[str, Arg("3-5 words for the user.")]
    prompt: Annotated[str, Arg("The complete task.")]
    subagent_type: str  # one of the catalog's names: the schema's enum is filled at run time
    run_in_background: Annotated[
        bool,
        Arg(
            "Run it in the background: answered at once with a task id and output file; you "
            "are told when it finishes (TaskOutput reads it meanwhile, TaskStop stops it)."
        ),
    ] = False


class AgentTool(TypedTool[AgentArgs]):
    name = AGENT_TOOL_NAME
    read_only = False  # what its subagent may do is decided by the subagent's own tools
    arguments = AgentArgs

    def __init__(
        self,
        catalog: SubagentCatalog,
        runner: SubagentRunner,
        limit: asyncio.Semaphore | None = None,
        *,
        background: BackgroundManager | None = None,
    ) -> None:
        self.runner = runner
        self.background = background
        self.limit = limit or asyncio.Semaphore(SUBAGENT_CONCURRENCY)
        self.use_catalog(catalog)

    def use_catalog(self, catalog: SubagentCatalog) -> None:
        """The types offered from now on (plugins enabled or disabled since)."""
        self.catalog = catalog
        self.description = f"{DESCRIPTION_HEAD}\n{describe_types(catalog)}"

    @property
    def parameters(self) -> dict[str, Any]:
        schema = copy.deepcopy(schema_of(AgentArgs))
        schema["properties"]["subagent_type"]["enum"] = self.catalog.names
        return schema

    async def call(self, args: AgentArgs, ctx: ToolContext) -> ToolResult:
        description = args.description.strip()
        prompt = args.prompt.strip()
        kind = args.subagent_type.strip()
        if not prompt:
            raise ToolError("prompt must not be empty.")
        definition = self.catalog.get(kind)
        if definition is None:
            raise ToolError(
                f"Unknown subagent_type {kind!r}; available: {', '.join(self.catalog.names)}."
            )
        label = description or definition.name
        if args.run_in_background and self.background is not None:
            return await self._in_background(definition, prompt, label)
        async with self.limit:
            try:
                if self.background is None:
                    text = await self.runner.run(definition, prompt, label)
                else:
                    moved = await self._movable(definition, prompt, label)
                    if isinstance(moved, ToolResult):
                        return moved
                    text = moved
            except (ToolError, asyncio.CancelledError):
                raise
            except Exception as exc:
                raise ToolError(
                    f"The {definition.name} subagent failed: {type(exc).__name__}: {exc}"
                ) from exc
        return ToolResult(
            content=text.strip() or "(the subagent returned no text)",
            summary=f"{definition.name}: {label}",
        )

    # req: SX9
    async def _movable(
        self, definition: SubagentDefinition, prompt: str, label: str
    ) -> str | ToolResult:
        """Run the subagent in the foreground, registered so that Ctrl+B (or the SDK's
        `background_current_task`) moves it to the background: then the call answers at once
        as `run_in_background` does and the run goes on there."""
        assert self.background is not None
        lines: list[str] = []
        run = asyncio.ensure_future(self.runner.run(definition, prompt, label, lines.append))
        moved = asyncio.Event()
        mover = asyncio.ensure_future(moved.wait())
        task_id = new_agent_task_id()
        foreground = self.background.foreground
        foreground.register(ForegroundTask(task_id, moved.set, label, "agent"))
        adopted = False
        try:
            await asyncio.wait({run, mover}, return_when=asyncio.FIRST_COMPLETED)
            if not run.done():

                async def rest(_progress: Callable[[str], None]) -> str:
                    return await run

                await self.background.start_agent(label, rest, lines, task_id)
                adopted = True
                return self._started(definition, self.background, task_id, label)
            return run.result()
        finally:
            foreground.unregister(task_id)
            mover.cancel()
            if not adopted and not run.done():
                run.cancel()  # the turn was aborted while the subagent ran in the foreground
                await asyncio.gather(run, return_exceptions=True)

    # req: BA1
    async def _in_background(
        self, definition: SubagentDefinition, prompt: str, label: str
    ) -> ToolResult:
        assert self.background is not None

        async def work(progress: Callable[[str], None]) -> str:
            async with self.limit:
                return await self.runner.run(definition, prompt, label, progress)

        task = await self.background.start_agent(label, work)
        return self._started(definition, self.background, task.id, label)

    @staticmethod
    def _started(
        definition: SubagentDefinition, background: BackgroundManager, task_id: str, label: str
    ) -> ToolResult:
        task = background.get(task_id)
        assert task is not None
        return ToolResult(
            content=(
                f"Agent running in the background with task id {task.id}.\n"
                f"Its output is written to {task.output_file}; read it with TaskOutput. Stop it "
                "with TaskStop. You will be told when it finishes; do not wait for it."
            ),
            summary=f"{definition.name}: {label} (background {task.id})",
        )
