"""A server's life: restarted once after a crash, faults turned into one clear tool error within
a bounded time (binary missing, crash at start, hang at initialize, garbage, no answer)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.features.lsp.conftest import fake_entry
from tests.features.lsp.test_operations import call
from tests.node_packages import node, npm_package
from tests.processes import alive
from wave_tui.features.lsp.config import parse_servers
from wave_tui.features.lsp.manager import LspManager


def wait_gone(pid: int, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() > deadline:
            pytest.fail(f"process {pid} still running")
        time.sleep(0.05)


@pytest.mark.req("LS3")
async def test_a_crashed_server_is_restarted_on_its_next_use(pylsp: LspManager, code: Path) -> None:
    first = await call(pylsp, code, operation="documentSymbol", filePath="helpers.py")
    assert not first.is_error, first.content
    server = next(iter(pylsp._servers.values()))
    pid = server.pid
    assert pid is not None and alive(pid)
    os.kill(pid, signal.SIGKILL)
    wait_gone(pid)
    again = await call(
        pylsp, code, operation="goToDefinition", filePath="app.py", line=5, character=11
    )
    assert again.content == "helpers.py:4:5: def greet(name: str) -> str:"
    (status,) = pylsp.statuses()
    assert status.state == "running"
    assert status.restarts == 1
    assert status.last_error is not None and status.last_error.startswith("exited with code")
    assert server.pid != pid


async def fault(code: Path, entry: dict[str, Any], **args: Any) -> tuple[str, LspManager]:
    manager = LspManager(parse_servers({"bad": entry}, "test"), code)
    try:
        result = await call(
            manager, code, **{"filePath": "app.py", "operation": "documentSymbol", **args}
        )
    finally:
        await manager.aclose()
    assert result.is_error
    return result.content, manager


@pytest.mark.req("LS3")
async def test_a_missing_binary_is_one_clear_error(code: Path) -> None:
    entry = {"command": "no-such-language-server", "extensionToLanguage": {".py": "python"}}
    content, _ = await fault(code, entry)
    assert content == ("LSP server bad failed to start: command not found: no-such-language-server")


@pytest.mark.req("LS3")
async def test_a_server_that_dies_at_start_is_tried_twice_then_given_up(
    code: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    manager = LspManager(
        parse_servers({"bad": fake_entry("crash", FAKE_LSP_PID_FILE=str(pids))}, "test"), code
    )
    try:
        first = await call(manager, code, operation="documentSymbol", filePath="app.py")
        later = await call(manager, code, operation="documentSymbol", filePath="app.py")
    finally:
        await manager.aclose()
    assert first.content.startswith(
        "LSP server bad failed to start: it exited during initialize (code 3)"
    )
    assert "fake_lsp: boom" in first.content
    assert later.content.startswith("LSP server bad is not available: it exited during initialize")
    assert len(pids.read_text().split()) == 2


@pytest.mark.req("LS3")
@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("hang", "LSP server bad failed to start: no answer to initialize within 3 s"),
        (
            "garbage",
            "LSP server bad failed to start: the server sent something that is not LSP: "
            "not an LSP header: b'this is not a language server\\r\\n'",
        ),
    ],
)
async def test_a_server_that_hangs_or_talks_garbage_is_one_clear_error(
    code: Path, mode: str, expected: str
) -> None:
    content, manager = await fault(code, fake_entry(mode))
    assert content == expected
    assert manager.statuses()[0].last_error == expected.removeprefix(
        "LSP server bad failed to start: "
    )


@pytest.mark.req("LS3")
async def test_a_server_that_never_answers_a_request_is_one_clear_error(code: Path) -> None:
    content, _ = await fault(
        code, fake_entry("silent"), operation="goToDefinition", line=1, character=1
    )
    assert content == "bad: no answer to textDocument/definition within 2 s"


def typescript_server(typescript: str) -> dict[str, Any]:
    """The real typescript-language-server, installed beside `typescript` (a `name@version`)."""
    modules = npm_package("typescript-language-server@6", typescript)
    return {
        "command": str(modules / ".bin" / "typescript-language-server"),
        "args": ["--stdio"],
        "extensionToLanguage": {".ts": "typescript"},
        "env": {"PATH": f"{node().parent}:{os.environ['PATH']}"},
    }


@pytest.mark.req("FH10")
async def test_typescript_7_without_tsserver_names_the_fix(code: Path) -> None:
    """The real typescript-language-server beside TypeScript 7 (which ships no tsserver):
    the start-up error says to install TypeScript 5."""
    (code / "a.ts").write_text("export const x: number = 1;\n")
    entry = typescript_server("typescript@7")
    content, _ = await fault(code, entry, filePath="a.ts")
    assert content.startswith("LSP server bad failed to start: initialize failed:")
    assert "Could not find a valid TypeScript installation" in content
    assert content.endswith("(npm install -g typescript@5 typescript-language-server)")


@pytest.mark.req("FH10")
async def test_the_readme_typescript_recipe_works(code: Path) -> None:
    """The README's install line (TypeScript 5 beside the server) gives a working server."""
    (code / "a.ts").write_text("export function greet(name: string): string {\n  return name;\n}\n")
    entry = typescript_server("typescript@5")
    manager = LspManager(parse_servers({"ts": entry}, "test"), code)
    try:
        result = await call(manager, code, filePath="a.ts", operation="documentSymbol")
    finally:
        await manager.aclose()
    assert not result.is_error, result.content
    assert "greet" in result.content
