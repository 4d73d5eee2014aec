"""`wave mcp list|get|add|remove|auth|logout` as a user runs them (real subprocesses)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.conftest import DEMO, OAuthDemo, oauth_demo, play_browser
from tests.model_server import ModelServer, text
from tests.wave_cli import WAVE, run_wave

__all__ = ["oauth_demo"]  # the fixture, shared with tests/mcp


def settings(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text())
    return data


@pytest.mark.req("MO6")
def test_mo6_add_stdio_writes_the_local_scope_by_default(project: Path) -> None:
    proc = run_wave(
        "mcp", "add", "demo", "-e", "TOKEN=abc", "--", sys.executable, str(DEMO), "-x", cwd=project
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "Added stdio MCP server 'demo' to the local scope (.wave/settings.local.json)\n"
    )
    assert settings(project / ".wave" / "settings.local.json") == {
        "mcpServers": {
            "demo": {"command": sys.executable, "args": [str(DEMO), "-x"], "env": {"TOKEN": "abc"}}
        }
    }


@pytest.mark.req("MO6")
def test_mo6_add_http_to_project_writes_mcp_json_and_keeps_other_keys(project: Path) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"old": {"command": "x"}}}))
    proc = run_wave(
        "mcp", "add", "--transport", "http", "web", "http://127.0.0.1:9/mcp",
        "-H", "X-Team: blue", "--scope", "project", cwd=project,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert settings(project / ".mcp.json") == {
        "mcpServers": {
            "old": {"command": "x"},
            "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Team": "blue"}},
        }
    }


@pytest.mark.req("MO6")
def test_mo6_add_user_scope_and_sse(project: Path, isolated_home: Path) -> None:
    user = isolated_home / ".wave" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps({"model": "m1"}))
    proc = run_wave(
        "mcp", "add", "-t", "sse", "--scope", "user", "old", "http://127.0.0.1:9/sse", cwd=project
    )
    assert proc.returncode == 0, proc.stderr
    assert settings(user) == {
        "model": "m1",
        "mcpServers": {"old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}},
    }


@pytest.mark.req("MO6")
def test_mo6_list_and_get(project: Path) -> None:
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"web": {"type": "http", "url": "http://127.0.0.1:9/mcp",
                                           "headers": {"Authorization": "Bearer s3cret"}}}})
    )  # fmt: skip
    assert run_wave("mcp", "add", "demo", "--", "srv", "--flag", cwd=project).returncode == 0
    listed = run_wave("mcp", "list", cwd=project)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == (  # each server connected once: its state and last error (MA9)
        "web: http://127.0.0.1:9/mcp  (http, project)  failed: ConnectError: All connection "
        "attempts failed\ndemo: srv --flag  (stdio, local)  failed: cannot start srv: No such "
        "file or directory\n"
    )
    got = run_wave("mcp", "get", "web", cwd=project)
    assert got.stdout == (
        "web\n  scope: project (.mcp.json)\n  type: http\n  url: http://127.0.0.1:9/mcp\n"
        "  header: Authorization: ***\n  authorization: none (wave mcp auth NAME)\n"
    )
    assert "s3cret" not in got.stdout
    missing = run_wave("mcp", "get", "nope", cwd=project)
    assert (missing.returncode, missing.stdout) == (1, "")
    assert missing.stderr == "wave: no MCP server 'nope' (configured: web, demo)\n"


@pytest.mark.req("MO6")
def test_mo6_remove_finds_the_scope_and_refuses_an_ambiguous_name(project: Path) -> None:
    assert run_wave("mcp", "add", "demo", "--", "a", cwd=project).returncode == 0
    assert run_wave("mcp", "add", "demo", "-s", "project", "--", "b", cwd=project).returncode == 0
    both = run_wave("mcp", "remove", "demo", cwd=project)
    assert both.returncode == 1
    assert both.stderr == (
        "wave: MCP server 'demo' is in several scopes (local, project); name one with --scope\n"
    )
    gone = run_wave("mcp", "remove", "demo", "--scope", "project", cwd=project)
    assert gone.returncode == 0, gone.stderr
    assert gone.stdout == "Removed MCP server 'demo' from the project scope (.mcp.json)\n"
    assert settings(project / ".mcp.json") == {}
    last = run_wave("mcp", "remove", "demo", cwd=project)
    assert last.stdout == (
        "Removed MCP server 'demo' from the local scope (.wave/settings.local.json)\n"
    )
    assert run_wave("mcp", "remove", "demo", cwd=project).returncode == 1


@pytest.mark.req("MO6")
@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["add", "bad name", "--", "x"], "cannot add MCP server 'bad name': a name may use only"),
        (["add", "-t", "http", "w", "ftp://x"], "url must start with http:// or https://"),
        (["add", "s"], "a stdio server needs its command: wave mcp add NAME -- CMD ARGS"),
        (["add", "s", "-e", "NOEQUALS", "--", "x"], "-e must look like KEY=VALUE"),
        (["add", "-t", "http", "w", "http://a", "-e", "A=1"], "-e is for stdio servers"),
    ],
)
def test_mo6_bad_add_is_one_line_and_writes_nothing(
    project: Path, args: list[str], line: str
) -> None:
    proc = run_wave("mcp", *args, cwd=project)
    assert proc.returncode == 1
    assert len(proc.stderr.splitlines()) == 1 and line in proc.stderr, proc.stderr
    assert not (project / ".wave" / "settings.local.json").exists()


@pytest.mark.req("MO6")
def test_mo6_a_broken_settings_file_is_not_overwritten(project: Path) -> None:
    local = project / ".wave" / "settings.local.json"
    local.parent.mkdir()
    local.write_text("{not json")
    proc = run_wave("mcp", "add", "demo", "--", "x", cwd=project)
    assert proc.returncode == 1 and "is not valid JSON" in proc.stderr
    assert local.read_text() == "{not json"


@pytest.mark.req("MO6")
def test_mo6_an_added_server_runs_in_wave_p(model_server: ModelServer, project: Path) -> None:
    assert (
        run_wave("mcp", "add", "demo", "--", sys.executable, str(DEMO), cwd=project).returncode == 0
    )
    model_server.enqueue(text("ok"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    first = model_server.requests[0].body
    tools = [t["function"]["name"] for t in first["tools"]]
    # The server is connected: its tools reach the model through Exec's catalog.
    assert "Exec" in tools and "mcp__demo__echo" in json.dumps(first["messages"])


@pytest.mark.req("MO2")
def test_mo2_wave_mcp_auth_prints_the_url_and_waits_then_logout(
    oauth_demo: OAuthDemo, project: Path, isolated_home: Path
) -> None:
    assert (
        run_wave("mcp", "add", "-t", "http", "secure", oauth_demo.url, cwd=project).returncode == 0
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [*WAVE, "mcp", "auth", "secure"],
        cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("Authorize MCP server 'secure': open this URL: ")
    assert first.rstrip().endswith("(waiting; Ctrl+C cancels)")
    url = first.split("open this URL: ", 1)[1].split()[0]
    assert "wave is authorized" in play_browser(url)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out == "MCP server 'secure' authorized (1 tool)\n"
    auth = isolated_home / ".wave" / "mcp-auth.json"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    listed = run_wave("mcp", "list", cwd=project)
    assert listed.stdout == f"secure: {oauth_demo.url}  (http, local, authorized)  ready, 1 tool\n"
    out_ = run_wave("mcp", "logout", "secure", cwd=project)
    assert out_.stdout == "MCP server 'secure': authorization removed\n"
    assert "secure" not in json.loads(auth.read_text())["servers"]
    again = run_wave("mcp", "logout", "secure", cwd=project)
    assert again.stdout == "MCP server 'secure': no stored authorization\n"


@pytest.mark.req("MO2")
def test_mo2_wave_mcp_auth_failure_is_one_line(oauth_demo: OAuthDemo, project: Path) -> None:
    oauth_demo.control(mode="as_down")
    assert (
        run_wave("mcp", "add", "-t", "http", "secure", oauth_demo.url, cwd=project).returncode == 0
    )
    proc = run_wave("mcp", "auth", "secure", cwd=project)
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        "wave: MCP server 'secure': authorization failed: "
        "cannot connect to the authorization server (127.0.0.1:"
    )
    assert len(proc.stderr.splitlines()) == 1
    stdio = run_wave("mcp", "add", "local", "--", "x", cwd=project)
    assert stdio.returncode == 0
    refused = run_wave("mcp", "auth", "local", cwd=project)
    assert refused.stderr == "wave: MCP server 'local' is a stdio server: no authorization\n"


@pytest.mark.req("MO2")
def test_mo2_wave_p_does_not_wait_for_a_server_needing_auth(
    oauth_demo: OAuthDemo, model_server: ModelServer, project: Path
) -> None:
    assert (
        run_wave("mcp", "add", "-t", "http", "secure", oauth_demo.url, cwd=project).returncode == 0
    )
    model_server.enqueue(text("fine"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "fine\n"
    assert proc.stderr == (
        "wave: warning: MCP server 'secure' needs authorization: run wave mcp auth secure\n"
    )
    tools = [t["function"]["name"] for t in model_server.requests[0].body.get("tools", [])]
    assert not any(t.startswith("mcp__secure") for t in tools)
