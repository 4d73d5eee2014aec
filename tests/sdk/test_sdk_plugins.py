"""The SDK's `plugins` option: plugin folders given by path load as enabled plugins, through the
same loaders as installed ones (their commands namespaced, their hooks run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.features.plugins.builders import make_plugin
from tests.model_server import ModelServer, text
from tests.sdk.programs import QUIET, run_program

PROGRAM = """
import asyncio
from wave_tui import Agent


async def main() -> None:
    async with await Agent.create(plugins=[{"path": "./tools/sdkp"}]) as agent:
        print((await agent.send_message("/sdkp:hello bob")).status)


asyncio.run(main())
"""


@pytest.mark.req("PG1")
def test_plugins_option_loads_a_plugin_folder(
    project: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    log = tmp_path / "hook.log"
    make_plugin(project / "tools" / "sdkp", "sdkp", layout=".wave-plugin", hook_log=log)
    model_server.enqueue(text("hi bob"))
    done = run_program(PROGRAM, cwd=project, server=model_server, env=QUIET)
    assert done.returncode == 0, done.stderr
    body = next(r.body for r in model_server.requests if r.path.endswith("/chat/completions"))
    assert any(
        "Say hello to bob from the sdkp plugin." in str(m["content"]) for m in body["messages"]
    )
    assert f"sdkp hook ran from {project}/tools/sdkp/hooks-handlers/prompt.sh" in log.read_text()
