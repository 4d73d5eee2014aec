"""`wave -p` as the client of the MCP conformance suite (`@modelcontextprotocol/conformance`).

The suite starts a test server per scenario and runs this command with the server's URL as the
last argument and the scenario's name in `MCP_CONFORMANCE_SCENARIO`. This wrapper writes that
server into a fresh user's `mcpServers` (`type: http`), scripts the model to call the scenario's
tool, and runs one real `wave -p` turn; its exit code is wave's. `wave -p` has nobody to fill
an elicitation form in (it declines), so the elicitation scenarios run one turn of an SDK program
instead, whose `on_elicitation` accepts without values (the schema's defaults fill the form).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.model_server import ModelServer, Reply, text, tool_call

ROOT = Path(__file__).resolve().parents[3]
SERVER = "conf"
# The tool each scenario's server offers, and the arguments the scripted model calls it with.
CALLS: dict[str, tuple[str, dict[str, object]]] = {
    "tools_call": ("add_numbers", {"a": 2, "b": 3}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
    "sse-retry": ("test_reconnection", {}),
}
# Every auth/* scenario's server offers this one tool behind its authorization.
AUTH_TOOL = "test-tool"
BROWSER = Path(__file__).with_name("browser.py")
SDK_SCENARIOS = ("elicitation-sep1034-client-defaults",)
# The client ID metadata document the suite's authorization server expects as the client_id.
CIMD_URL = "https://conformance-test.local/client-metadata.json"
CIMD_SCENARIOS = ("auth/basic-cimd",)
# Scenarios of a client acting for itself (client credentials): no `wave mcp auth` first.
MACHINE_SCENARIOS = ("auth/client-credentials-basic",)


def accept(server: str, message: str, schema: dict[str, object]) -> dict[str, object]:
    return {"action": "accept", "content": {}}


def sdk_turn(project: Path, env: dict[str, str]) -> int:
    """One turn of an SDK program in `project` (its environment: `env`)."""
    os.environ.clear()
    os.environ.update(env)
    from wave_tui import Agent

    async def turn() -> int:
        async with await Agent.create(
            workdir=str(project), allowed_tools=[f"mcp__{SERVER}"], on_elicitation=accept
        ) as agent:
            end = await agent.send_message("go")
        return 0 if end.status == "completed" else 1

    return asyncio.run(turn())


def oauth_entry(scenario: str) -> dict[str, object]:
    """The entry's `oauth` client: the pre-registered credentials the suite passes in
    `MCP_CONFORMANCE_CONTEXT`, and the suite's client ID metadata document URL where it tests
    CIMD (a user would name their own document there)."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    oauth: dict[str, str] = {}
    if context.get("client_id"):
        oauth["clientId"] = str(context["client_id"])
        if context.get("client_secret"):
            oauth["clientSecret"] = str(context["client_secret"])
    if scenario in CIMD_SCENARIOS:
        oauth["clientMetadataUrl"] = CIMD_URL
    if scenario in MACHINE_SCENARIOS:
        oauth["grantType"] = "client_credentials"
    return {"oauth": oauth} if oauth else {}


def script(scenario: str) -> list[Reply]:
    call = (AUTH_TOOL, {}) if scenario.startswith("auth/") else CALLS.get(scenario)
    if call is None:
        return [text("done")]
    name, arguments = call
    return [tool_call(f"mcp__{SERVER}__{name}", arguments), text("done")]


def main(argv: list[str]) -> int:
    url = argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    with tempfile.TemporaryDirectory(prefix="wave-conformance-") as tmp, ModelServer() as model:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        (home / ".wave").mkdir(parents=True)
        project.mkdir()
        entry: dict[str, object] = {"type": "http", "url": url, **oauth_entry(scenario)}
        (home / ".wave" / "settings.json").write_text(json.dumps({"mcpServers": {SERVER: entry}}))
        model.enqueue(*script(scenario))
        env = model.env(HOME=str(home), WAVE_DISABLE_AUTO_MEMORY="1", PYTHONPATH=str(ROOT))
        env["BROWSER"] = f"{sys.executable} {BROWSER} %s"
        consent = scenario.startswith("auth/") and scenario not in MACHINE_SCENARIOS
        if consent and authorize(project, env) != 0:
            return 1
        if scenario in SDK_SCENARIOS:
            return sdk_turn(project, env)
        code, asked = wave_p(project, env)
        if asked and scenario.startswith("auth/"):
            # What the user does on wave's notice (a step-up): authorize again, then run again.
            model.enqueue(*script(scenario))
            if authorize(project, env) != 0:
                return 1
            code, asked = wave_p(project, env)
        return code


def authorize(project: Path, env: dict[str, str]) -> int:
    """`wave mcp auth`, headless: the suite's authorization server approves by itself."""
    auth = subprocess.run(
        [sys.executable, "-m", "wave_tui", "mcp", "auth", SERVER],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return auth.returncode


def wave_p(project: Path, env: dict[str, str]) -> tuple[int, bool]:
    """One `wave -p` turn: its exit code, and whether it said the server needs authorization."""
    proc = subprocess.run(
        [sys.executable, "-m", "wave_tui", "-p", "go", "--allowedTools", f"mcp__{SERVER}"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    sys.stderr.write(proc.stderr)
    return proc.returncode, f"run wave mcp auth {SERVER}" in proc.stderr


if __name__ == "__main__":
    sys.exit(main(sys.argv))
