"""What `wave -p` writes to stdout: plain text, one JSON result, or a JSON line stream (HL2, HL3).

What it prints comes from the session: the run's start (`RunInfo`), the messages as they complete
(events), and how it ended (`RunReport`, with the usage of the run's main-agent requests).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, Literal, TextIO, get_args

from wave_tui.agent import events as ev
from wave_tui.cli.process import output_closed
from wave_tui.session.types import Message, RunInfo, RunReport

OutputFormat = Literal["text", "json", "stream-json"]
OUTPUT_FORMATS: tuple[str, ...] = get_args(OutputFormat)
ResultSubtype = Literal["success", "error_during_execution", "error_max_turns"]


def result_subtype(report: RunReport) -> ResultSubtype:
    if report.stop in ("max_turns", "max_rounds"):
        return "error_max_turns"
    return "success" if report.status == "completed" else "error_during_execution"


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
    `on_closed` is called once (the run stops) and nothing more is written. `started` is
    `time.monotonic()` at the start of the run (the result's `duration_ms`)."""

    def __init__(
        self,
        fmt: OutputFormat,
        stream: TextIO,
        on_closed: Callable[[], None] = lambda: None,
        *,
        started: float,
    ) -> None:
        self.fmt = fmt
        self._stream = stream
        self._on_closed = on_closed
        self._started = started
        self.closed = False

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

    def init(self, info: RunInfo) -> None:
        if self.fmt == "stream-json":
            self._line(
                {
                    "type": "system",
                    "subtype": "init",
                    "session_id": info.session_id,
                    "model": info.model,
                    "cwd": str(info.cwd),
                    "tools": list(info.tools),
                }
            )

    def on_event(self, event: ev.AgentEvent) -> None:
        if self.fmt != "stream-json":
            return
        if isinstance(event, ev.AssistantFinished):
            self._line({"type": "assistant", "message": assistant_message(event.message)})
        elif isinstance(event, ev.ToolFinished):
            block = {
                "type": "tool_result",
                "tool_use_id": event.call_id,
                "content": event.content,
                "is_error": event.is_error,
            }
            self._line({"type": "user", "message": {"role": "user", "content": [block]}})

    def result(self, report: RunReport) -> None:
        if self.fmt == "text":
            if report.status == "completed":
                self._write(report.text if report.text.endswith("\n") else report.text + "\n")
            return
        # req: HL2
        subtype = result_subtype(report)
        usage: dict[str, Any] = {
            "input_tokens": report.usage.input_tokens,
            "output_tokens": report.usage.output_tokens,
            "cache_read_input_tokens": report.usage.cache_read_tokens,
        }
        if report.usage.estimated:  # the endpoint sent no usage: counted from characters (PV9)
            usage["estimated"] = True
        self._line(
            {
                "type": "result",
                "subtype": subtype,
                "is_error": subtype != "success",
                "result": report.text if report.status == "completed" else (report.error or ""),
                "session_id": report.session_id,
                "num_turns": report.num_turns,
                "duration_ms": int((time.monotonic() - self._started) * 1000),
                "usage": usage,
            }
        )  # `json`: this one line is the whole output
