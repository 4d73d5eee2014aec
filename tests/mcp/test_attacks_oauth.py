"""A hostile MCP server's OAuth, attacked through `wave mcp auth` inside a fresh network namespace
(`servers/oauth_netns.py`): 8.8.8.8 plays a public host, 10.1.2.3 an intranet one and
169.254.169.254 the cloud metadata service, all of them only inside the namespace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.mcp.conftest import Notes, OAuthDemo
from wave_tui.config.paths import WavePaths
from wave_tui.mcp.manager import McpManager

# Every attack here is on the OAuth of HTTP servers.
pytestmark = pytest.mark.req("MO1")

SCRIPT = Path(__file__).resolve().parent / "servers" / "oauth_netns.py"
PUBLIC, INTRANET, METADATA = "8.8.8.8", "10.1.2.3", "169.254.169.254"
SETUP = (
    "ip link set lo up"
    f" && ip addr add {PUBLIC}/32 dev lo"
    f" && ip addr add {INTRANET}/32 dev lo"
    f" && ip addr add {METADATA}/32 dev lo"
    ' && exec "$0" "$@"'
)


def attack(project: Path, **scenario: str) -> dict[str, Any]:
    """Run the scenario in its own network namespace; what wave did and what the server saw."""
    proc = subprocess.run(
        ["unshare", "-n", "sh", "-c", SETUP, sys.executable, str(SCRIPT), json.dumps(scenario)],
        capture_output=True,
        text=True,
        cwd=project,
        env=dict(os.environ),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return report


def hosts_hit(report: dict[str, Any]) -> set[str]:
    return {local for local, _method, _path, _auth in report["hits"]}


def refused_line(report: dict[str, Any]) -> str:
    assert report["rc"] == 1, report
    lines = report["stderr"].strip().splitlines()
    assert len(lines) == 1, report["stderr"]
    return str(lines[0])


@pytest.mark.parametrize(
    ("scenario", "bad"),
    [
        ({"as": INTRANET}, INTRANET),  # authorization_servers
        ({"as": METADATA}, METADATA),
        ({"as": "127.0.0.1"}, "127.0.0.1"),
        ({"prm_url": f"http://{METADATA}:8000/.well-known/oauth-protected-resource"}, METADATA),
        ({"as": PUBLIC, "register": METADATA}, METADATA),  # registration_endpoint
        ({"as": PUBLIC, "token": INTRANET}, INTRANET),  # token_endpoint
    ],
)
def test_a_public_server_cannot_steer_oauth_at_private_addresses(
    project: Path, scenario: dict[str, str], bad: str
) -> None:
    report = attack(project, server=PUBLIC, **scenario)
    line = refused_line(report)
    assert f"refused an OAuth request to http://{bad}:8000/" in line, line
    assert f"{bad} is a " in line and "the MCP server (8.8.8.8) is not" in line
    assert bad not in hosts_hit(report)  # not one request reached it
    assert report["stored"] is None or "remote" not in report["stored"]["servers"]


def test_jwks_uri_is_never_fetched(project: Path) -> None:
    report = attack(project, server=PUBLIC, jwks=METADATA)
    assert report["rc"] == 0, report
    assert hosts_hit(report) == {PUBLIC}


def test_an_intranet_server_may_use_its_intranet_authorization_server(project: Path) -> None:
    report = attack(project, server=INTRANET, **{"as": INTRANET})
    assert report["rc"] == 0, report
    assert "authorized" in report["stdout"]
    assert report["stored"]["servers"]["remote"]["tokens"]["access_token"] == "at-netns"
    # ...but not the metadata service
    report = attack(project, server=INTRANET, **{"as": INTRANET, "token": METADATA})
    assert METADATA in refused_line(report)
    assert METADATA not in hosts_hit(report)


def authorize_query(report: dict[str, Any]) -> dict[str, str]:
    (path,) = [p for _l, m, p, _a in report["hits"] if p.startswith("/as/authorize")]
    return {k: v[0] for k, v in parse_qs(urlsplit(path).query).items()}


@pytest.mark.parametrize("state", ["drop", "wrong"])
def test_a_callback_without_the_right_state_is_refused_and_its_code_never_exchanged(
    project: Path, state: str
) -> None:
    report = attack(project, server=PUBLIC, state=state)
    line = refused_line(report)
    assert "wrong state" in line, line
    assert not [p for _l, _m, p, _a in report["hits"] if p == "/as/token"]
    assert report["stored"] is None or "remote" not in report["stored"]["servers"]


def test_pkce_s256_and_a_loopback_redirect_only(project: Path) -> None:
    report = attack(project, server=PUBLIC)
    assert report["rc"] == 0, report
    query = authorize_query(report)
    assert query["code_challenge_method"] == "S256" and len(query["code_challenge"]) >= 43
    assert urlsplit(query["redirect_uri"]).hostname == "127.0.0.1"
    (client,) = [report["stored"]["servers"]["remote"]["client"]]
    assert all(urlsplit(u).hostname == "127.0.0.1" for u in client["redirect_uris"])


def test_the_token_never_follows_a_redirect_to_another_origin(project: Path) -> None:
    report = attack(project, server=PUBLIC, redirect_to=INTRANET)
    assert report["rc"] == 1, report
    assert INTRANET not in hosts_hit(report)
    bearer = [local for local, _m, _p, auth in report["hits"] if auth.startswith("Bearer ")]
    assert set(bearer) == {PUBLIC}


async def test_a_stored_client_with_a_foreign_redirect_never_registers_it(
    oauth_demo: OAuthDemo, project: Path, notes: Notes
) -> None:
    """The stored client is what a registration answer said: a hostile authorization server may
    have put its own redirect there. A later run registers again (the issuer changed) with
    wave's loopback redirect, never that one."""
    auth_file = WavePaths.for_workdir(project).mcp_auth_file
    auth_file.parent.mkdir(parents=True, exist_ok=True)
    client = {
        "client_id": "old",
        "redirect_uris": ["https://evil.example/callback"],
        "token_endpoint_auth_method": "none",
        "issuer": "http://elsewhere.example/as",
    }
    tokens = {"access_token": "stale", "token_type": "Bearer"}
    entry = {"url": oauth_demo.url, "tokens": tokens, "client": client}
    auth_file.write_text(json.dumps({"servers": {"secure": entry}}))
    manager = McpManager([oauth_demo.config()], workdir=project, notify=notes, auth_file=auth_file)
    manager.start()
    await manager.wait_started()
    try:
        assert manager.statuses()[0].state == "needs-auth"
    finally:
        await manager.aclose()
    with urllib.request.urlopen(f"{oauth_demo.base}/_clients", timeout=10) as response:
        registered = json.loads(response.read())
    assert registered, "the flow registered again"
    for found in registered:
        assert [urlsplit(u).hostname for u in found["redirect_uris"]] == ["127.0.0.1"], found
