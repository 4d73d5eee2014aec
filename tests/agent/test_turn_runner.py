"""The loop's extension points and the command layer, through the service's public API
(UX15: commands answered locally; ToolProvider / TurnObserver / continuations)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.model_server import ModelServer, text, tool_call
from wave_tui.agent import events as ev
from wave_tui.agent.extensions import (
    ToolProvider,
    TurnContinuation,
    TurnEnd,
    TurnObserver,
    TurnStart,
)
from wave_tui.agent.service import MAX_CONTINUATIONS, AgentOptions, AgentService
from wave_tui.llm.client import ClientConfig, ModelClient
from wave_tui.session.factory import create_service
from wave_tui.tools.base import ToolContext, ToolResult


@pytest.mark.req("UX15")
async def test_ux15_help_is_answered_locally_and_never_reaches_the_model(
    make_service, model_server: ModelServer
) -> None:
    service: AgentService = make_service()
    seen: list[ev.AgentEvent] = []
    service.subscribe(seen.append)
    result = await service.run_turn("/help")
    await service.destroy()
    assert result.command and result.status == "completed"
    assert "/compact [focus]" in result.text and "/model [NAME]" in result.text
    assert "Esc" in result.text  # keys too
    assert model_server.requests == []
    answered = [e for e in seen if isinstance(e, ev.CommandAnswered)]
    assert [a.text for a in answered] == [result.text]
    assert service.messages == []  # nothing in the conversation


@pytest.mark.req("UX15")
async def test_ux15_unknown_command_is_not_a_turn_and_counts_no_extraction(
    model_server: ModelServer, project: Path
) -> None:
    env = {
        "WAVE_BASE_URL": model_server.base_url,
        "WAVE_API_KEY": "k",
        "WAVE_MODEL": "test-model",
        "WAVE_AUTO_MEMORY_FREQUENCY": "2",
    }
    service = create_service(AgentOptions(workdir=project, environ=env))
    service.start()
    before = service.turns_until_next
    result = await service.run_turn("/nosuch thing")
    await service.destroy()
    assert result.command and result.status == "error"
    assert "unknown command /nosuch" in (result.error or "")
    assert service.turns_until_next == before == 2
    assert model_server.requests == []


@pytest.mark.req("UX15")
async def test_ux15_model_permissions_and_placeholders_answer_locally(
    make_service, model_server: ModelServer
) -> None:
    service: AgentService = make_service()
    listed = await service.run_turn("/model")
    switched = await service.run_turn("/model other-model")
    perms = await service.run_turn("/permissions")
    mcp = await service.run_turn("/mcp")
    await service.destroy()
    assert "* test-model" in listed.text
    assert service.model == "other-model" and "other-model" in switched.text
    assert perms.text.startswith("Mode: default")
    assert mcp.text == "No MCP servers configured."
    assert model_server.requests == []


@dataclass
class EchoTool:
    name: str = "Echo"
    description: str = "Echo the text back"
    parameters: dict[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {"text": {"type": "string"}}}
    )
    read_only: bool = True

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(f"echo: {args.get('text')}")


class EchoProvider:
    def tools(self) -> list[EchoTool]:
        return [EchoTool()]


async def test_tool_provider_tools_are_offered_and_run_per_request(
    make_service, model_server: ModelServer
) -> None:
    model_server.enqueue(tool_call("Echo", {"text": "hi"}), text("done"))
    service: AgentService = make_service(permission_mode="bypassPermissions")
    service.add_extension(EchoProvider(), ToolProvider)
    result = await service.run_turn("echo hi")
    await service.destroy()
    assert result.text == "done"
    first = model_server.requests[0].body
    assert "Echo" in [t["function"]["name"] for t in first["tools"]]
    second = model_server.requests[1].body["messages"]
    assert any(m.get("role") == "tool" and m.get("content") == "echo: hi" for m in second)


class Gatekeeper:
    """A TurnObserver: blocks prompts with 'secret', adds context to others, asks to go on."""

    def __init__(self, continue_with: str | None = None) -> None:
        self.ends: list[TurnEnd] = []
        self.continue_with = continue_with

    async def on_turn_start(self, prompt: str) -> TurnStart:
        if "secret" in prompt:
            return TurnStart(blocked="prompts with secrets are not sent")
        return TurnStart(context=("house rule: answer briefly",))

    async def on_turn_end(self, end: TurnEnd) -> TurnContinuation | None:
        self.ends.append(end)
        return TurnContinuation(self.continue_with) if self.continue_with else None


async def test_turn_observer_blocks_a_prompt_or_adds_meta_context(
    make_service, model_server: ModelServer
) -> None:
    model_server.enqueue(text("brief"))
    service: AgentService = make_service()
    gate = Gatekeeper()
    service.add_extension(gate, TurnObserver)
    blocked = await service.run_turn("my secret is 42")
    assert model_server.requests == [] and blocked.command
    result = await service.run_turn("hello")
    await service.destroy()
    assert result.text == "brief"
    wire = model_server.requests[0].body["messages"]
    assert any("house rule: answer briefly" in json.dumps(m) for m in wire)
    meta = [m for m in service.messages if m.is_meta]
    assert [m.content for m in meta] == ["house rule: answer briefly"]
    assert [e.status for e in gate.ends] == ["completed"]


async def test_stop_continuations_are_bounded(make_service, model_server: ModelServer) -> None:
    for n in range(MAX_CONTINUATIONS + 2):
        model_server.enqueue(text(f"reply {n}"))
    service: AgentService = make_service()
    gate = Gatekeeper(continue_with="keep going")
    service.add_extension(gate, TurnObserver)
    result = await service.run_turn("start")
    await service.destroy()
    assert len(model_server.requests) == 1 + MAX_CONTINUATIONS
    assert result.text == f"reply {MAX_CONTINUATIONS}"
    assert len(gate.ends) == 1 + MAX_CONTINUATIONS


def _sse(content: str) -> bytes:
    chunk = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": "stop"}],
    }
    return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()


async def test_the_model_gateway_uses_the_injected_client_factory(project: Path) -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(
            200, content=_sse("from the mock"), headers={"content-type": "text/event-stream"}
        )

    def factory(config: ClientConfig) -> ModelClient:
        return ModelClient(config, transport=httpx.MockTransport(handler))

    env = {"WAVE_BASE_URL": "http://model.invalid/v1", "WAVE_API_KEY": "k", "WAVE_MODEL": "m"}
    service = AgentService(AgentOptions(workdir=project, environ=env), client_factory=factory)
    result = await service.run_turn("hi")
    await service.destroy()
    assert result.text == "from the mock"
    assert seen and seen[0]["model"] == "m"
