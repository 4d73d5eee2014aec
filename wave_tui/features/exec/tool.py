"""The `Exec(code)` tool: a JavaScript script that awaits the session's MCP tools, each nested
call down the same permission pipeline as a direct call of that tool, within budgets."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from wave_tui.features.exec.catalog import search
from wave_tui.llm.types import ImagePart
from wave_tui.permissions.tool_table import EXEC
from wave_tui.tools.base import Tool, ToolContext, ToolResult, error_result

# The budgets of one script (004 §5): over one, the run fails with a result; it never hangs.
WALL_TIME_S = 60.0
MAX_NESTED_CALLS = 50
MAX_LOG_CHARS = 8_000
MAX_RESULT_CHARS = 100_000
MAX_IMAGES = 4

NO_OUTPUT = "(no output)"  # what an MCP result without content reads as (mcp/results.py)
SEARCH_PATH = ("tools", "$codemode", "search")
# Constant whatever the pool: connecting a server never changes the tools array.
EXEC_DESCRIPTION = (
    "Run a JavaScript script that calls MCP tools, to chain several calls (fetch, transform, "
    "write back) in one step. The tools are listed in the latest <exec-catalog> message. In the "
    "script: `await tools.<name>(args)` calls one (its own argument object; it resolves to its "
    'structured result or its text, rejects when refused or failed); `await tools["$codemode"]'
    ".search({query})` lists matching tools with full descriptions; `console.log(...)` output is "
    "returned too; `return value` gives the model the value as JSON. No file system, network, "
    "modules or eval. Budgets: 60 s, 50 nested calls, 8,000 characters of console output, "
    "100,000 characters of result, 4 images."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "description": "The JavaScript source (an async body)."}
    },
    "required": ["code"],
}

RunLeaf = Callable[[str, dict[str, Any], Sequence[Tool], asyncio.Event], Awaitable[ToolResult]]


class ExecTool:  # req: EX1
    name = EXEC
    description = EXEC_DESCRIPTION
    read_only = False
    parameters = PARAMETERS

    def __init__(self, pool: Callable[[], Sequence[Tool]], run_leaf: RunLeaf) -> None:
        self._pool = pool
        self._run_leaf = run_leaf

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        code = args.get("code")
        if not isinstance(code, str) or not code.strip():
            return error_result("Exec needs `code`: the JavaScript to run.")
        from wave_tui.tools.js_engine import JsLimits, run_js  # the engine, on first use

        script = _Script(list(self._pool()), self._run_leaf, ctx.abort)
        run = await run_js(code, script.functions(), JsLimits(WALL_TIME_S, MAX_LOG_CHARS))
        logs = f"\n\nconsole:\n{run.logs}" if run.logs else ""
        if run.error is not None:
            return ToolResult(f"Exec failed: {run.error}{logs}", is_error=True, summary="failed")
        value = run.value_json or "null"
        if len(value) > MAX_RESULT_CHARS:
            return ToolResult(
                f"Exec failed: the returned value is {len(value):,} characters, over the budget "
                f"of {MAX_RESULT_CHARS:,}; return less (a summary, a slice).{logs}",
                is_error=True,
                summary="failed",
            )
        calls = script.calls
        return ToolResult(
            value + logs,
            summary=f"{calls} nested call{'' if calls == 1 else 's'}",
            images=script.images,
        )


class _Script:
    """The host side of one run: the leaf tools as host functions, and the budgets they spend."""

    def __init__(self, pool: list[Tool], run_leaf: RunLeaf, abort: asyncio.Event) -> None:
        self._pool = pool
        self._run_leaf = run_leaf
        self._abort = abort
        self.calls = 0
        self.images: list[ImagePart] = []

    def functions(self) -> dict[tuple[str, ...], Callable[[Any], Awaitable[Any]]]:
        table: dict[tuple[str, ...], Callable[[Any], Awaitable[Any]]] = {
            ("tools", tool.name): self._leaf(tool.name) for tool in self._pool
        }
        table[SEARCH_PATH] = self._search
        return table

    async def _search(self, args: Any) -> Any:
        query = args.get("query", "") if isinstance(args, dict) else ""
        return search(self._pool, query if isinstance(query, str) else "")

    def _leaf(self, name: str) -> Callable[[Any], Awaitable[Any]]:
        async def call(args: Any) -> Any:
            return await self._call(name, args)

        return call

    # req: EX3
    # req: EX4
    async def _call(self, name: str, args: Any) -> Any:
        from wave_tui.tools.js_engine import HostRefusal, JsAbort

        self.calls += 1
        if self.calls > MAX_NESTED_CALLS:
            raise JsAbort(f"over the budget of {MAX_NESTED_CALLS} nested tool calls")
        if not isinstance(args, dict):
            raise HostRefusal(f"{name} takes one argument object")
        result = await self._run_leaf(name, args, self._pool, self._abort)
        if result.is_error:
            raise HostRefusal(result.content)
        self.images.extend(result.images)
        if len(self.images) > MAX_IMAGES:
            raise JsAbort(f"over the budget of {MAX_IMAGES} images from nested calls")
        return leaf_value(result.content)


def leaf_value(content: str) -> Any:
    """What the script gets: the structured result (servers send it serialised as the text),
    else the text, else null — no envelope."""
    text = content.strip()
    if not text or text == NO_OUTPUT:
        return None
    if text[0] in "{[":
        try:
            return json.loads(text)
        except ValueError:
            return content
    return content


class Undeclared:
    """A leaf Exec folds: not declared to the model, yet a direct call by its name (a resumed
    conversation's, a model's habit) still runs down the pipeline as itself."""

    declared = False

    def __init__(self, tool: Tool) -> None:
        self._tool = tool
        self.name = tool.name
        self.description = tool.description
        self.read_only = tool.read_only

    @property
    def parameters(self) -> dict[str, Any]:
        return self._tool.parameters

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await self._tool.run(args, ctx)
