"""The `LSP` tool's operations against a running server, and the diagnostics after an edit.

Each call first puts the file's current text in the server (didOpen, or didChange when it
changed: Bash or the user may have edited it), converts the 1-based position to LSP's, sends
the request, and formats the answer (`results.py`) in a worker thread (it reads files). A
server that dies under a request is restarted once and the request sent again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from wave_tui.config.records import record
from wave_tui.features.lsp import results
from wave_tui.features.lsp.errors import LspError, ServerGone
from wave_tui.features.lsp.manager import LspManager
from wave_tui.features.lsp.operation_names import Operation
from wave_tui.features.lsp.server import LanguageServer
from wave_tui.files.text_files import load_text, split_lines

POSITIONAL: frozenset[str] = frozenset(
    {
        "goToDefinition",
        "findReferences",
        "hover",
        "goToImplementation",
        "prepareCallHierarchy",
        "incomingCalls",
        "outgoingCalls",
    }
)
CAPABILITY: dict[str, str] = {
    "goToDefinition": "definitionProvider",
    "findReferences": "referencesProvider",
    "hover": "hoverProvider",
    "documentSymbol": "documentSymbolProvider",
    "workspaceSymbol": "workspaceSymbolProvider",
    "goToImplementation": "implementationProvider",
    "prepareCallHierarchy": "callHierarchyProvider",
    "incomingCalls": "callHierarchyProvider",
    "outgoingCalls": "callHierarchyProvider",
}


@record
class Answer:
    text: str  # for the model
    summary: str  # one short line for the UI ("3 references")


async def open_server(manager: LspManager, path: Path) -> tuple[LanguageServer, str]:
    found = await manager.server_for(path)
    if found is None:
        known = sorted({e for s in manager.config.servers for e in s.extension_to_language})
        raise LspError(
            f"No LSP server handles {path.suffix or path.name} files "
            f"(configured for: {', '.join(known) or 'nothing'})."
        )
    return found


async def sync_file(server: LanguageServer, path: Path, language: str) -> list[str]:
    text = (await load_text(path)).text
    await server.sync(path, text, language)
    return split_lines(text)


# req: LS1
async def run_operation(
    manager: LspManager,
    operation: Operation,
    path: Path,
    line: int | None,
    character: int | None,
    query: str | None,
) -> Answer:
    server, language = await open_server(manager, path)
    capability = CAPABILITY[operation]
    if not server.capabilities.get(capability):
        raise LspError(f"The {server.config.name} server does not support {operation}.")
    if operation in POSITIONAL and (line is None or character is None):
        raise LspError(f"{operation} needs `line` and `character` (1-based, as Read shows them).")
    if operation == "workspaceSymbol" and not query:
        raise LspError("workspaceSymbol needs a `query` (part of a symbol's name).")

    async def attempt() -> Answer:
        lines = await sync_file(server, path, language)
        return await _ask(manager, server, operation, path, lines, line, character, query)

    try:
        return await attempt()
    except ServerGone:
        await server.ensure_running()  # restarted once for this crash
        return await attempt()


def _position(lines: list[str], line: int, character: int) -> lsp.Position:
    if line > max(len(lines), 1):
        raise LspError(f"Line {line} is past the end of the file ({len(lines)} lines).")
    text = lines[line - 1] if lines else ""
    if character > len(text) + 1:
        raise LspError(
            f"Line {line} has {len(text)} characters; character {character} is past its end."
        )
    return lsp.Position(line=line - 1, character=results.to_utf16(text, character))


async def _ask(
    manager: LspManager,
    server: LanguageServer,
    operation: Operation,
    path: Path,
    lines: list[str],
    line: int | None,
    character: int | None,
    query: str | None,
) -> Answer:
    uri = path.as_uri()
    doc = lsp.TextDocumentIdentifier(uri=uri)
    fmt = _formatter(manager, server)
    request = server.request
    if operation == "documentSymbol":
        found = await request(
            lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, lsp.DocumentSymbolParams(text_document=doc)
        )
        return await _format(lambda: results.document_symbols(found, uri, fmt), "symbol")
    if operation == "workspaceSymbol":
        found = await request(lsp.WORKSPACE_SYMBOL, lsp.WorkspaceSymbolParams(query=query or ""))
        return await _format(lambda: results.workspace_symbols(found, fmt), "symbol")
    assert line is not None and character is not None
    position = _position(lines, line, character)
    if operation == "hover":
        found = await request(
            lsp.TEXT_DOCUMENT_HOVER, lsp.HoverParams(text_document=doc, position=position)
        )
        text = results.hover(found)
        return Answer(text, "hover" if found is not None else "no hover")
    if operation in ("goToDefinition", "goToImplementation", "findReferences"):
        params: Any
        if operation == "goToDefinition":
            method, params, what = (
                lsp.TEXT_DOCUMENT_DEFINITION,
                lsp.DefinitionParams(text_document=doc, position=position),
                "definition",
            )
        elif operation == "goToImplementation":
            method, params, what = (
                lsp.TEXT_DOCUMENT_IMPLEMENTATION,
                lsp.ImplementationParams(text_document=doc, position=position),
                "implementation",
            )
        else:
            method, what = lsp.TEXT_DOCUMENT_REFERENCES, "reference"
            params = lsp.ReferenceParams(
                context=lsp.ReferenceContext(include_declaration=True),
                text_document=doc,
                position=position,
            )
        found = await request(method, params)
        return await _format(lambda: results.locations(found, fmt, what + "s"), what)
    items = await request(
        lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY,
        lsp.CallHierarchyPrepareParams(text_document=doc, position=position),
    )
    if operation == "prepareCallHierarchy" or not items:
        return await _format(lambda: results.call_items(items, fmt), "item")
    if operation == "incomingCalls":
        incoming = await request(
            lsp.CALL_HIERARCHY_INCOMING_CALLS, lsp.CallHierarchyIncomingCallsParams(item=items[0])
        )
        callers = [c.from_ for c in incoming or []]
        return await _format(lambda: results.calls(callers, fmt, "incoming calls"), "caller")
    outgoing = await request(
        lsp.CALL_HIERARCHY_OUTGOING_CALLS, lsp.CallHierarchyOutgoingCallsParams(item=items[0])
    )
    callees = [c.to for c in outgoing or []]
    return await _format(lambda: results.calls(callees, fmt, "outgoing calls"), "callee")


def _formatter(manager: LspManager, server: LanguageServer) -> results.Formatter:
    texts = server.open_texts()

    def lines_of(path: Path) -> list[str] | None:
        known = texts.get(path.as_uri())
        if known is not None:
            return split_lines(known)
        try:
            return split_lines(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            return None

    return results.Formatter(manager.root, lines_of)


async def _format(build: Callable[[], tuple[str, int]], noun: str) -> Answer:
    text, count = await asyncio.to_thread(build)
    return Answer(text, f"{count} {noun}{'' if count == 1 else 's'}")


# req: LS4
async def diagnostics_after_edit(manager: LspManager, path: Path, wait_s: float) -> str | None:
    """Sync the edited file, wait (bounded) for the server's next diagnostics for it, and return
    the `<diagnostics>` block of its errors (None: no errors, or nothing within the wait)."""
    server, language = await open_server(manager, path)
    uri = path.as_uri()
    before = server.publish_count(uri)
    try:
        await sync_file(server, path, language)
    except ServerGone:
        await server.ensure_running()
        before = server.publish_count(uri)
        await sync_file(server, path, language)
    if not await server.wait_for_publish(uri, before, wait_s):
        return None
    fmt = _formatter(manager, server)
    found = server.diagnostics.get(uri, [])
    return await asyncio.to_thread(results.diagnostics_block, found, uri, fmt, server.config.name)
