"""What `wave -p` writes to stdout: plain text, one JSON result, or a JSON line stream (HL2, HL3).

`usage` sums the run's main-agent requests (`input_tokens` includes cached prompt tokens);
a reply whose endpoint sent no usage is estimated (~4 characters per token).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TextIO, get_args

from wave_tui.agent import events as ev
from wave_tui.cli.process import output_closed
from wave_tui.config.records import record
from wave_tui.session.facade import Message

if TYPE_CHECKING:
    from wave_tui.session.facade import AgentService, TurnResult

OutputFormat = Literal["text", "json", "stream-json"]
OUTPUT_FORMATS: tuple[str, ...] = get_args(OutputFormat)
ResultSubtype = Literal["success", "error_during_execution", "error_max_turns"]
CHARS_PER_TOKEN = 4


@record
class RunReport:
    result: TurnResult
    session_id: str
    num_turns: int
    started: float  # time.monotonic() at the start of the run

    @property
    def subtype(self) -> ResultSubtype:
        if self.result.stop in ("max_turns", "max_rounds"):
            return "error_max_turns"
        return "success" if self.result.status == "completed" else "error_during_execution"


def _estimate(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN) if text else 0


def assistant_message(message: Message) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if message.content:
        content.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        try:
            args: Any = json.loads(call.arguments or "{}")
        except ValueError:
            args = call.arguments
        content.append({"type": "tool_use", "id": call.id, "name": call.name, "input": args})
    return {"id": message.id, "role": "assistant", "content": content}


class ScriptOutput:
    """Writes the run to `stream`; when its reader goes away (`| head -1`), `closed` is set,
    `on_closed` is called once (the run stops) and nothing more is written."""

    def __init__(
        self, fmt: OutputFormat, stream: TextIO, on_closed: Callable[[], None] = lambda: None
    ) -> None:
        self.fmt = fmt
        self._stream = stream
        self._on_closed = on_closed
        self.closed = False
        self.input_tokens = 0
        self.output_tokens = 0
        self.cache_read = 0
        self.estimated = False
        self._service: AgentService | None = None

    # req: CV12
    # req: HL3
    def _write(self, text: str) -> None:
        if self.closed:
            return
        try:
            self._stream.write(text)
            self._stream.flush()
        except BrokenPipeError:
            self.closed = True
            output_closed()
            self._on_closed()

    def _line(self, obj: dict[str, Any]) -> None:
        self._write(json.dumps(obj, ensure_ascii=False) + "\n")

    def init(self, service: AgentService) -> None:
        self._service = service
        if self.fmt == "stream-json":
            self._line(
                {
                    "type": "system",
                    "subtype": "init",
                    "session_id": service.session_id,
                    "model": service.model or "",
                    "cwd": str(service.paths.project_root),
                    "tools": [t.name for t in service.all_tools()],
                }
            )

    def on_event(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.AssistantFinished):
            self._count(event.message)
            if self.fmt == "stream-json":
                self._line({"type": "assistant", "message": assistant_message(event.message)})
        elif isinstance(event, ev.ToolFinished) and self.fmt == "stream-json":
            block = {
                "type": "tool_result",
                "tool_use_id": event.call_id,
                "content": event.content,
                "is_error": event.is_error,
            }
            self._line({"type": "user", "message": {"role": "user", "content": [block]}})

    # req: PV9
    def _count(self, message: Message) -> None:
        usage = message.usage
        if usage is not None:
            self.input_tokens += usage.prompt_tokens
            self.output_tokens += usage.completion_tokens
            self.cache_read += usage.cache_read_tokens
            self.estimated = self.estimated or usage.estimated
            return
        self.estimated = True
        request = self._service.last_request if self._service is not None else None
        self.input_tokens += _estimate(json.dumps(request)) if request else 0
        text = message.content + "".join(c.arguments for c in message.tool_calls)
        self.output_tokens += _estimate(text)

    def result(self, report: RunReport) -> None:
        result = report.result
        if self.fmt == "text":
            if result.status == "completed":
                self._write(result.text if result.text.endswith("\n") else result.text + "\n")
            return
        # req: HL2
        obj = {
            "type": "result",
            "subtype": report.subtype,
            "is_error": report.subtype != "success",
            "result": result.text if result.status == "completed" else (result.error or ""),
            "session_id": report.session_id,
            "num_turns": report.num_turns,
            "duration_ms": int((time.monotonic() - report.started) * 1000),
            "usage": {
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "cache_read_input_tokens": self.cache_read,
            },
        }
        if self.estimated:  # the endpoint sent no usage: counted from characters (PV9)
            obj["usage"]["estimated"] = True  # type: ignore[index]
        self._line(obj)  # `json`: this one line is the whole output
