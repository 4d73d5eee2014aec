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
        entry = {"type": "http", "url": url}
        (home / ".wave" / "settings.json").write_text(json.dumps({"mcpServers": {SERVER: entry}}))
        model.enqueue(*script(scenario))
        env = model.env(HOME=str(home), WAVE_DISABLE_AUTO_MEMORY="1", PYTHONPATH=str(ROOT))
        env["BROWSER"] = f"{sys.executable} {BROWSER} %s"
        if scenario.startswith("auth/"):
            # Authorize first, headless: the suite's authorization server approves by itself.
            auth = subprocess.run(
                [sys.executable, "-m", "wave_tui", "mcp", "auth", SERVER],
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                check=False,
            )
            if auth.returncode != 0:
                return auth.returncode
        if scenario in SDK_SCENARIOS:
            return sdk_turn(project, env)
        proc = subprocess.run(
            [sys.executable, "-m", "wave_tui", "-p", "go", "--allowedTools", f"mcp__{SERVER}"],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
