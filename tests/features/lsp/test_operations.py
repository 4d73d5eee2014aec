"""The `LSP` tool's operations over real language servers: pylsp on the fixture project, and
the fake server for what pylsp does not offer (implementation, call hierarchy, workspace
symbols). Positions in and out are 1-based as Read shows them; paths relative to the project.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.features.lsp.conftest import fake_entry
from wave_tui.features.lsp.config import parse_servers
from wave_tui.features.lsp.manager import LspManager
from wave_tui.features.lsp.results import from_utf16, to_utf16
from wave_tui.features.lsp.tool import LspTool
from wave_tui.files.read_state import ReadState
from wave_tui.tools.base import ToolContext, ToolResult

pytestmark = pytest.mark.req("LS1")


async def call(manager: LspManager, root: Path, **args: Any) -> ToolResult:
    return await LspTool(manager).run(args, ToolContext(workdir=root, read_state=ReadState()))


async def test_go_to_definition_names_the_defining_line(pylsp: LspManager, code: Path) -> None:
    # app.py line 5 is `    print(greet("wave"))`: `greet` starts at character 11.
    result = await call(
        pylsp, code, operation="goToDefinition", filePath="app.py", line=5, character=11
    )
    assert not result.is_error, result.content
    assert result.content == "helpers.py:4:5: def greet(name: str) -> str:"


async def test_find_references_lists_every_use_with_its_line(pylsp: LspManager, code: Path) -> None:
    result = await call(
        pylsp,
        code,
        operation="findReferences",
        filePath=str(code / "helpers.py"),
        line=4,
        character=5,
    )
    assert not result.is_error, result.content
    assert result.content.splitlines() == [
        "app.py:1:21: from helpers import greet",
        'app.py:5:11: print(greet("wave"))',
        'app.py:6:11: print(greet("wörld"))',
        "helpers.py:4:5: def greet(name: str) -> str:",
    ]
    assert result.summary == "4 references"


async def test_hover_gives_signature_and_docstring(pylsp: LspManager, code: Path) -> None:
    result = await call(pylsp, code, operation="hover", filePath="app.py", line=6, character=12)
    assert not result.is_error, result.content
    assert "greet(name: str) -> str" in result.content
    assert "Say hello to someone." in result.content


async def test_document_symbol_lists_the_files_symbols(pylsp: LspManager, code: Path) -> None:
    result = await call(pylsp, code, operation="documentSymbol", filePath="helpers.py")
    assert not result.is_error, result.content
    assert result.content == "helpers.py:4:1: Function greet"


async def test_an_operation_the_server_lacks_is_one_clear_error(
    pylsp: LspManager, code: Path
) -> None:
    result = await call(
        pylsp, code, operation="goToImplementation", filePath="app.py", line=5, character=11
    )
    assert result.is_error
    assert result.content == "The pylsp server does not support goToImplementation."


async def test_a_position_past_the_line_is_refused(pylsp: LspManager, code: Path) -> None:
    result = await call(pylsp, code, operation="hover", filePath="app.py", line=5, character=60)
    assert result.is_error
    assert "character 60 is past its end" in result.content


async def test_the_file_is_synced_before_each_call(pylsp: LspManager, code: Path) -> None:
    """A change on disk since the last call (Bash, the user) is what the server answers about."""
    first = await call(
        pylsp, code, operation="goToDefinition", filePath="app.py", line=5, character=11
    )
    assert first.content.startswith("helpers.py:4:5")
    (code / "app.py").write_text('def greet(x):\n    return x\n\n\nprint(greet("wave"))\n')
    again = await call(
        pylsp, code, operation="goToDefinition", filePath="app.py", line=5, character=7
    )
    assert again.content == "app.py:1:5: def greet(x):"


async def test_a_file_no_server_handles_is_a_tool_error(pylsp: LspManager, code: Path) -> None:
    (code / "notes.md").write_text("# notes\n")
    result = await call(pylsp, code, operation="documentSymbol", filePath="notes.md")
    assert result.is_error
    assert result.content == "No LSP server is configured for .md files (settings `lspServers`)."


def fake_manager(root: Path, target: Path) -> LspManager:
    entry = fake_entry("full", FAKE_LSP_FILE=str(target))
    return LspManager(parse_servers({"fake": entry}, "test"), root)


@pytest.mark.parametrize(
    ("operation", "expected"),
    [
        ("goToImplementation", ["helpers.py:4:5: def greet(name: str) -> str:"]),
        ("prepareCallHierarchy", ["helpers.py:4:5: Function greet — def greet(name: str) -> str:"]),
        ("incomingCalls", ['helpers.py:1:1: Function main — """Helpers."""']),
        ("outgoingCalls", ['helpers.py:1:1: Function main — """Helpers."""']),
        ("workspaceSymbol", ["helpers.py:4:5: Function greet — def greet(name: str) -> str:"]),
    ],
)
async def test_the_other_operations_format_like_the_rest(
    code: Path, operation: str, expected: list[str]
) -> None:
    manager = fake_manager(code, code / "helpers.py")
    try:
        result = await call(
            manager,
            code,
            operation=operation,
            filePath="helpers.py",
            line=4,
            character=5,
            query="gre",
        )
    finally:
        await manager.aclose()
    assert not result.is_error, result.content
    assert result.content.splitlines() == expected


def test_columns_are_characters_and_lsp_gets_utf16_units() -> None:
    line = 'x = "😀é" + y'
    # `y` is the 12th character; before it stand 11 characters, the emoji two UTF-16 units.
    assert to_utf16(line, 12) == 12
    assert from_utf16(line, 12) == 12
    assert to_utf16("abc", 1) == 0
    assert from_utf16("abc", 0) == 1
