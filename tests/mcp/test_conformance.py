"""The official MCP conformance suite's client scenarios against `wave` (MA13).

`@modelcontextprotocol/conformance` starts a test server per scenario and runs
`tests/mcp/conformance/client.py` (a real `wave -p` turn, after a headless `wave mcp auth` for
the auth/* scenarios) against it. `conformance/expected-failures.yml` lists the scenarios wave
does not pass yet; the suite itself fails a run when a listed scenario passes (the list only
shrinks) and when an unlisted one fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.node_packages import node, npm_package

SUITE = "@modelcontextprotocol/conformance@0.1.16"
HERE = Path(__file__).resolve().parent / "conformance"
ROOT = HERE.parents[2]
EXPECTED_FAILURES = HERE / "expected-failures.yml"
# The client scenarios of the pinned suite (`conformance list`); a test below keeps it current.
SCENARIOS = (
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/cross-app-access-complete-flow",
)


def conformance(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cli = npm_package(SUITE) / ".bin" / "conformance"
    return subprocess.run(
        [str(node()), str(cli), *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=180,
    )


@pytest.mark.req("MA13")
def test_ma13_the_scenario_list_is_the_suites() -> None:
    listing = conformance("list", cwd=ROOT)
    assert listing.returncode == 0, listing.stderr
    client = listing.stdout.split("Client scenarios", 1)[1]
    names = [line.split()[1] for line in client.splitlines() if line.startswith("  - ")]
    assert tuple(names) == SCENARIOS


@pytest.mark.req("MA13")
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_ma13_client_scenario(scenario: str, tmp_path: Path) -> None:
    command = f"{sys.executable} -m tests.mcp.conformance.client"
    run = conformance(
        "client",
        "--command",
        command,
        "--scenario",
        scenario,
        "--expected-failures",
        str(EXPECTED_FAILURES),
        "-o",
        str(tmp_path / "results"),
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
