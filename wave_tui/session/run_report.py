"""What a `wave -p` run prints, as the session reports it: the run's start and its end.

`RunInfo` is what is known once the session started (the session id, model, folder, tools);
`RunReport` how the turn ended, with the usage of its main-agent requests summed from the replies
as they arrive (`input_tokens` includes cached prompt tokens; a reply whose endpoint sent no usage
is estimated at ~4 characters per token, PV9). The CLI formats these; it never reads the agent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.agent.turn_runner import StopReason, TurnResult
from wave_tui.config.records import record
from wave_tui.llm.types import Message

CHARS_PER_TOKEN = 4


@record
class RunInfo:
    session_id: str
    model: str  # empty when none is configured
    cwd: Path
    tools: tuple[str, ...]


@record
class RunUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    estimated: bool = False  # some reply came without usage: counted from characters


@record
class RunReport:
    status: ev.TurnStatus
    text: str  # the final answer ("" when the turn did not complete)
    error: str | None
    stop: StopReason
    session_id: str
    num_turns: int  # model requests the run made
    usage: RunUsage


def _estimate(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN) if text else 0


# req: PV9
def counted(usage: RunUsage, message: Message, request: dict[str, Any] | None) -> RunUsage:
    """`usage` with one more reply: its reported usage, or an estimate from the request sent
    and the reply's text."""
    reported = message.usage
    if reported is not None:
        return RunUsage(
            usage.input_tokens + reported.prompt_tokens,
            usage.output_tokens + reported.completion_tokens,
            usage.cache_read_tokens + reported.cache_read_tokens,
            usage.estimated or reported.estimated,
        )
    sent = _estimate(json.dumps(request)) if request else 0
    text = message.content + "".join(c.arguments for c in message.tool_calls)
    return RunUsage(
        usage.input_tokens + sent,
        usage.output_tokens + _estimate(text),
        usage.cache_read_tokens,
        estimated=True,
    )


def run_report(
    result: TurnResult, usage: RunUsage, *, session_id: str, num_turns: int
) -> RunReport:
    return RunReport(
        status=result.status,
        text=result.text,
        error=result.error,
        stop=result.stop,
        session_id=session_id,
        num_turns=num_turns,
        usage=usage,
    )
