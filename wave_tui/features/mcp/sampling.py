"""`sampling/createMessage`: a server asks the session's model for a completion (MA2).

It is approved like a tool call `McpSampling(server)` (the text it would send is the call's
`prompt` argument): the app asks the user, a rule `McpSampling(server)` (settings'
`permissions.allow`, `--allowedTools`) allows it, and `wave -p` refuses it otherwise. The
completion is a request of its own to the session's model — the conversation does not see it,
and the extraction fork never answers one (the servers belong to the main session): the fork
cannot call a server, and a sampling asked outside an open request of wave's is refused before it
gets here (`mcp/client_requests.py`).
"""

from __future__ import annotations

from typing import Any

from wave_tui.agent.service import AgentService
from wave_tui.llm.errors import ModelError
from wave_tui.mcp.client_host import SamplingAsk, SamplingReply
from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.tool_table import MCP_SAMPLING

SAMPLING_MAX_TOKENS = 4096  # whatever the server asks for, a sampling reply stays this short
PROMPT_SHOWN_CHARS = 2000  # of the request, in the approval question


# req: MA2
async def sample(service: AgentService, ask: SamplingAsk) -> SamplingReply:
    prompt = "\n\n".join(f"{role}: {text}" for role, text in ask.messages)
    args = {"server": ask.server, "prompt": prompt[:PROMPT_SHOWN_CHARS]}
    call = AnalysedUse.of(MCP_SAMPLING, args, service.workdir)
    resolution = await service.policy.resolve(call, service.permission_asker())
    if resolution.refusal is not None:
        return SamplingReply(error=f"sampling refused: {resolution.refusal}")
    model = service.model
    if model is None:
        return SamplingReply(error="sampling failed: no model is configured")
    try:
        reply = await service.client().stream_chat(_body(model, ask))
    except ModelError as exc:
        return SamplingReply(error=f"sampling failed: {exc}")
    return SamplingReply(reply.content, model)


def _body(model: str, ask: SamplingAsk) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if ask.system_prompt:
        messages.append({"role": "system", "content": ask.system_prompt})
    messages += [{"role": role, "content": text} for role, text in ask.messages]
    return {
        "model": model,
        "messages": messages,
        "max_tokens": max(1, min(ask.max_tokens, SAMPLING_MAX_TOKENS)),
    }
