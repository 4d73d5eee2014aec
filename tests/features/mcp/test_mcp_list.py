"""`wave mcp list [--json]` connects every server and shows its health (MA9), as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.features.mcp.everything import everything_entry, user_servers
from tests.wave_cli import run_wave


@pytest.mark.req("MA9")
def test_ma9_mcp_list_shows_state_tools_and_last_error(project: Path) -> None:
    user_servers({"ev": everything_entry(), "gone": {"command": "no-such-server-binary"}})
    listed = run_wave("mcp", "list", "--json", cwd=project)
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["ev"]["state"] == "ready" and rows["ev"]["lastError"] is None
    assert rows["ev"]["tools"] > 10
    assert rows["gone"]["state"] == "failed" and rows["gone"]["tools"] == 0
    assert "no-such-server-binary" in rows["gone"]["lastError"]
    text = run_wave("mcp", "list", cwd=project)
    lines = text.stdout.splitlines()
    assert any(
        line.startswith("ev: ") and line.endswith(f"ready, {rows['ev']['tools']} tools")
        for line in lines
    )
    assert any(line.startswith("gone: ") and "  failed: " in line for line in lines)
