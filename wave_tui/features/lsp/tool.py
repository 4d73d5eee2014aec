"""The `LSP` tool: definitions, references, hover, symbols and call hierarchy from a language
server, at 1-based positions as Read shows them.

Declared only when a server is configured (the wiring offers it). This module stays light: the
operations and `lsprotocol` are imported on the first call, after the server module was loaded
off the event loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from wave_tui.features.lsp.errors import LspError
from wave_tui.features.lsp.manager import load_operations
from wave_tui.features.lsp.operation_names import Operation
from wave_tui.permissions.tool_table import LSP
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult, resolve_path

if TYPE_CHECKING:
    from wave_tui.features.lsp.manager import LspManager

DESCRIPTION = """\
Code intelligence from a language server: where a symbol is defined, where it is used, its type \
and documentation, the symbols of a file or of the workspace, and call hierarchies.
- operation: goToDefinition, findReferences, hover, documentSymbol, workspaceSymbol (with query), \
goToImplementation, prepareCallHierarchy, incomingCalls, outgoingCalls.
- filePath: the file (absolute, or relative to the working directory); for workspaceSymbol, any \
file of the language to search.
- line and character: 1-based, as Read numbers lines and as an editor counts columns; put them on \
the symbol's name. Not needed for documentSymbol and workspaceSymbol.
- Results are `path:line:col: text` lines, paths relative to the project.
Prefer it over Grep to find a definition or the real uses of a name."""


@tool_arguments
class LspArgs:
    operation: Annotated[Operation, Arg("What to ask the language server.")]
    filePath: Annotated[str, Arg("The file the position is in.")]
    line: Annotated[int | None, Arg("1-based line number, as Read shows it.", minimum=1)] = None
    character: Annotated[int | None, Arg("1-based character in that line (column).", minimum=1)] = (
        None
    )
    query: Annotated[str | None, Arg("For workspaceSymbol: part of a symbol's name.")] = None


class LspTool(TypedTool[LspArgs]):
    name = LSP
    description = DESCRIPTION
    read_only = True
    arguments = LspArgs

    def __init__(self, manager: LspManager) -> None:
        self._manager = manager

    # req: LS1
    async def call(self, args: LspArgs, ctx: ToolContext) -> ToolResult:
        path = resolve_path(args.filePath, ctx.workdir)
        if not self._manager.handles(path):
            raise ToolError(
                f"No LSP server is configured for {path.suffix or path.name} files "
                "(settings `lspServers`)."
            )
        try:
            operations = await load_operations()
            answer = await operations.run_operation(
                self._manager, args.operation, path, args.line, args.character, args.query
            )
        except LspError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(answer.text, summary=answer.summary)
