"""`wave -p` with a real language server from settings `lspServers`: the tool declared only when
one is configured, diagnostics after an Edit, `/lsp`, and nothing imported without servers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_lazy_imports import imported_modules, loaded
from tests.features.lsp.conftest import pylsp_entry, write_settings
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import chats, tool_names, tool_results


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.mark.req("LS5")
@pytest.mark.req("LS2")
def test_the_tool_is_declared_only_when_a_server_is_configured(
    model_server: ModelServer, code: Path
) -> None:
    model_server.enqueue(text("no servers"), text("servers"))
    plain = run_wave("-p", "hi", cwd=code, server=model_server)
    assert plain.returncode == 0, plain.stderr
    write_settings(code, pylsp=pylsp_entry())
    configured = run_wave("-p", "hi", cwd=code, server=model_server)
    assert configured.returncode == 0, configured.stderr
    without, with_server = chats(model_server)
    assert "LSP" not in tool_names(without)
    assert "LSP" in tool_names(with_server)


@pytest.mark.req("LS2")
def test_without_servers_no_lsp_module_is_imported(model_server: ModelServer, code: Path) -> None:
    model_server.enqueue(text("hello"))
    proc = run_wave("-p", "hi", cwd=code, server=model_server, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = imported_modules(proc.stderr)
    assert "wave_tui.session.factory" in names  # the probe itself works
    assert not loaded(names, "wave_tui.features.lsp")
    assert not loaded(names, "lsprotocol")


@pytest.mark.req("LS2")
def test_a_configured_server_starts_on_first_use_not_at_start(
    model_server: ModelServer, code: Path
) -> None:
    """Configured but not used: the feature's light modules load, no server nor lsprotocol."""
    write_settings(code, pylsp=pylsp_entry())
    model_server.enqueue(text("hello"))
    proc = run_wave("-p", "hi", cwd=code, server=model_server, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = imported_modules(proc.stderr)
    assert "wave_tui.features.lsp.wiring" in names
    assert not loaded(names, "lsprotocol")
    assert not loaded(names, "wave_tui.features.lsp.server")


@pytest.mark.req("LS4")
@pytest.mark.req("LS1")
def test_an_edit_that_breaks_the_code_gets_the_servers_errors(
    model_server: ModelServer, code: Path
) -> None:
    write_settings(code, pylsp=pylsp_entry())
    model_server.enqueue(
        tool_call("Read", {"file_path": "app.py"}),
        tool_call(
            "Edit",
            {"file_path": "app.py", "old_string": 'greet("wave")', "new_string": 'gret("wave")'},
        ),
        tool_call(
            "LSP", {"operation": "goToDefinition", "filePath": "app.py", "line": 6, "character": 11}
        ),
        text("done"),
    )
    proc = run_wave(
        "-p", "rename", "--permission-mode", "acceptEdits", cwd=code, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    last = chats(model_server)[-1]
    _, edited, definition = tool_results(last)
    assert edited.endswith(
        '<diagnostics server="pylsp">\n'
        "app.py:5:11: error [pyflakes]: undefined name 'gret'\n"
        "</diagnostics>"
    ), edited
    assert definition == "helpers.py:4:5: def greet(name: str) -> str:"


@pytest.mark.req("LS4")
def test_an_edit_that_keeps_the_code_clean_gets_no_block(
    model_server: ModelServer, code: Path
) -> None:
    write_settings(code, pylsp=pylsp_entry())
    model_server.enqueue(
        tool_call("Read", {"file_path": "app.py"}),
        tool_call(
            "Edit",
            {"file_path": "app.py", "old_string": '"wave"', "new_string": '"waves"'},
        ),
        text("done"),
    )
    proc = run_wave("-p", "edit", "--permission-mode", "acceptEdits", cwd=code, server=model_server)
    assert proc.returncode == 0, proc.stderr
    _, edited = tool_results(chats(model_server)[-1])
    assert "<diagnostics" not in edited
    assert edited.startswith("Edited ")  # Edit's own result, untouched
    assert edited.endswith('print(greet("wörld"))')


@pytest.mark.req("LS5")
def test_lsp_command_lists_servers_and_their_state(model_server: ModelServer, code: Path) -> None:
    write_settings(code, pylsp=pylsp_entry(), broken={"command": "x"})
    proc = run_wave("-p", "/lsp", cwd=code, server=model_server)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("pylsp: not started  (.py · ")
    assert any("lspServers.broken: `extensionToLanguage` must map" in line for line in lines)


@pytest.mark.req("LS2")
def test_a_bad_server_entry_is_one_warning_and_the_others_still_work(
    model_server: ModelServer, code: Path
) -> None:
    write_settings(code, pylsp=pylsp_entry(), broken={"command": "x"})
    model_server.enqueue(
        tool_call("LSP", {"operation": "documentSymbol", "filePath": "helpers.py"}), text("ok")
    )
    proc = run_wave("-p", "symbols", cwd=code, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        f"wave: warning: {code / '.wave' / 'settings.json'}: lspServers.broken: "
        '`extensionToLanguage` must map extensions to languages ({".py": "python"})\n'
    )
    assert tool_results(chats(model_server)[-1]) == ["helpers.py:4:1: Function greet"]
