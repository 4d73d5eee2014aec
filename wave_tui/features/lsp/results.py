"""What the `LSP` tool returns: server answers as `path:line:col: text` lines, and diagnostics.

Positions shown are 1-based line and character, as Read numbers lines and as an editor counts
columns (characters, not LSP's UTF-16 units); paths are relative to the project. The line's text
comes from the server's view of an open document, else from disk.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from wave_tui.config.paths import display_path

MAX_RESULTS = 200
MAX_LINE_CHARS = 200
MAX_HOVER_CHARS = 8_000

LineSource = Callable[[Path], list[str] | None]


def to_utf16(line: str, character: int) -> int:
    """A 1-based character column of `line` as LSP's 0-based UTF-16 offset."""
    prefix = line[: max(character - 1, 0)]
    return len(prefix.encode("utf-16-le")) // 2


def from_utf16(line: str, offset: int) -> int:
    """LSP's 0-based UTF-16 offset in `line` as a 1-based character column."""
    units = 0
    for index, char in enumerate(line):
        if units >= offset:
            return index + 1
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line) + 1


def uri_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


class Formatter:
    """Turns positions into the tool's lines, reading each file's lines once."""

    def __init__(self, root: Path, lines_of: LineSource) -> None:
        self.root = root
        self._lines_of = lines_of
        self._cache: dict[Path, list[str] | None] = {}

    def _lines(self, path: Path) -> list[str] | None:
        if path not in self._cache:
            self._cache[path] = self._lines_of(path)
        return self._cache[path]

    def where(self, uri: str, position: lsp.Position) -> tuple[str, str]:
        """(`path:line:col`, the line's text)."""
        path = uri_path(uri)
        if path is None:
            return f"{uri}:{position.line + 1}:{position.character + 1}", ""
        lines = self._lines(path) or []
        text = lines[position.line] if 0 <= position.line < len(lines) else ""
        column = from_utf16(text, position.character)
        shown = display_path(path, self.root)
        return f"{shown}:{position.line + 1}:{column}", _clip(text.strip())

    def location(self, uri: str, position: lsp.Position, label: str = "") -> str:
        place, text = self.where(uri, position)
        head = f"{place}: {label}" if label else f"{place}:"
        return f"{head} {text}".rstrip() if text else head.rstrip(":")


def _clip(text: str) -> str:
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + "…"


def _capped(lines: list[str], what: str) -> str:
    if not lines:
        return f"No {what} found."
    if len(lines) > MAX_RESULTS:
        extra = len(lines) - MAX_RESULTS
        lines = [*lines[:MAX_RESULTS], f"… and {extra} more"]
    return "\n".join(lines)


def locations(
    result: lsp.Location | Sequence[lsp.Location] | Sequence[lsp.LocationLink] | None,
    fmt: Formatter,
    what: str,
) -> tuple[str, int]:
    items: Iterable[lsp.Location | lsp.LocationLink]
    if result is None:
        items = []
    elif isinstance(result, lsp.Location):
        items = [result]
    else:
        items = result
    lines = []
    for item in items:
        if isinstance(item, lsp.LocationLink):
            lines.append(fmt.location(item.target_uri, item.target_selection_range.start))
        else:
            lines.append(fmt.location(item.uri, item.range.start))
    unique = list(dict.fromkeys(lines))
    return _capped(unique, what), len(unique)


def hover(result: lsp.Hover | None) -> str:
    if result is None:
        return "No hover information here."
    contents = result.contents
    parts: list[str] = []
    items = contents if isinstance(contents, list) else [contents]
    for item in items:
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, lsp.MarkupContent):
            parts.append(item.value)
        elif isinstance(item, lsp.MarkedStringWithLanguage):
            parts.append(f"```{item.language}\n{item.value}\n```")
    text = "\n\n".join(p.strip() for p in parts if p.strip())
    if not text:
        return "No hover information here."
    return text if len(text) <= MAX_HOVER_CHARS else text[:MAX_HOVER_CHARS] + "\n… (cut)"


def _kind(kind: lsp.SymbolKind) -> str:
    with contextlib.suppress(ValueError):
        return lsp.SymbolKind(kind).name
    return str(kind)


def document_symbols(
    result: Sequence[lsp.DocumentSymbol] | Sequence[lsp.SymbolInformation] | None,
    uri: str,
    fmt: Formatter,
) -> tuple[str, int]:
    lines: list[str] = []

    def walk(symbol: lsp.DocumentSymbol, depth: int) -> None:
        place, _ = fmt.where(uri, symbol.selection_range.start)
        lines.append(f"{'  ' * depth}{place}: {_kind(symbol.kind)} {symbol.name}")
        for child in symbol.children or []:
            walk(child, depth + 1)

    for item in result or []:
        if isinstance(item, lsp.DocumentSymbol):
            walk(item, 0)
        else:
            place, _ = fmt.where(item.location.uri, item.location.range.start)
            container = f" (in {item.container_name})" if item.container_name else ""
            lines.append(f"{place}: {_kind(item.kind)} {item.name}{container}")
    return _capped(lines, "symbols"), len(lines)


def workspace_symbols(
    result: Sequence[lsp.SymbolInformation] | Sequence[lsp.WorkspaceSymbol] | None,
    fmt: Formatter,
) -> tuple[str, int]:
    lines: list[str] = []
    for item in result or []:
        location = item.location
        if isinstance(location, lsp.Location):
            place, text = fmt.where(location.uri, location.range.start)
        else:
            place, text = display_path(uri_path(location.uri) or location.uri, fmt.root), ""
        container = f" (in {item.container_name})" if item.container_name else ""
        line = f"{place}: {_kind(item.kind)} {item.name}{container}"
        lines.append(f"{line} — {text}" if text else line)
    return _capped(lines, "symbols"), len(lines)


def call_items(items: Sequence[lsp.CallHierarchyItem] | None, fmt: Formatter) -> tuple[str, int]:
    lines = [
        fmt.location(i.uri, i.selection_range.start, f"{_kind(i.kind)} {i.name} —")
        for i in items or []
    ]
    return _capped(lines, "call hierarchy items"), len(lines)


def calls(
    items: Sequence[lsp.CallHierarchyItem],
    fmt: Formatter,
    what: str,
) -> tuple[str, int]:
    return _capped(
        [
            fmt.location(i.uri, i.selection_range.start, f"{_kind(i.kind)} {i.name} —")
            for i in items
        ],
        what,
    ), len(items)


def diagnostics_block(
    diagnostics: Sequence[lsp.Diagnostic], uri: str, fmt: Formatter, server: str
) -> str | None:
    """The errors of one file as the model gets them after an edit, or None when there are none."""
    errors = [d for d in diagnostics if d.severity in (None, lsp.DiagnosticSeverity.Error)]
    if not errors:
        return None
    lines = []
    for d in sorted(errors, key=lambda d: (d.range.start.line, d.range.start.character)):
        place, _ = fmt.where(uri, d.range.start)
        source = f" [{d.source}]" if d.source else ""
        message = " ".join(d.message.split())
        lines.append(f"{place}: error{source}: {message}")
    if len(lines) > MAX_RESULTS:
        lines = [*lines[:MAX_RESULTS], f"… and {len(lines) - MAX_RESULTS} more"]
    body = "\n".join(lines)
    return f'<diagnostics server="{server}">\n{body}\n</diagnostics>'
