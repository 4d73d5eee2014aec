"""The session's answers to its MCP servers' requests (the `ClientHost` of `mcp/client_host.py`).

- roots: the project root and the folder the session works in (a worktree once it moved);
- elicitation: a form for the front end (`ElicitationRequested`: the app's dialog, an SDK
  program's `on_elicitation`); `wave -p` has nobody to ask and declines;
- sampling: see `features/mcp/sampling.py`;
- progress: on the row of the running call (`ToolProgress`), and kept per server for `/mcp`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentService
from wave_tui.mcp.client_host import ElicitationForm, ElicitationReply, SamplingAsk, SamplingReply
from wave_tui.mcp.tools import qualified_name


class SessionHost:
    def __init__(self, service: AgentService) -> None:
        self._service = service
        self.progress_lines: dict[str, str] = {}  # server -> its last progress line

    # req: MA1
    def roots(self) -> list[Path]:
        return [self._service.paths.project_root, self._service.workdir]

    # req: MA3
    async def elicit(self, form: ElicitationForm) -> ElicitationReply:
        service = self._service
        if service.options.headless:
            return ElicitationReply("decline")
        future: asyncio.Future[ev.ElicitationAnswer] = asyncio.get_running_loop().create_future()
        service.publish(ev.ElicitationRequested(form.server, form.message, form.schema, future))
        answer = await future
        return ElicitationReply(answer.action, answer.content)

    async def sample(self, ask: SamplingAsk) -> SamplingReply:
        from wave_tui.features.mcp.sampling import sample

        return await sample(self._service, ask)

    # req: MA4
    def progress(self, server: str, tool: str, text: str, call_id: str) -> None:
        self.progress_lines[server] = f"{tool}: {text}"
        self._service.publish(ev.ToolProgress(qualified_name(server, tool), text, call_id))
