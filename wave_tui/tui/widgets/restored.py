"""The chat blocks of a restored conversation (`--continue`, `--resume`, `/resume`).

Each block as the live run showed it: a user's words as typed, a `!cmd` run as its command
block, replies with their Thinking, tool calls with the summary and diff their results keep.
isMeta messages stay hidden, as they are live.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from textual.widget import Widget

from wave_tui.config.paths import WavePaths
from wave_tui.session.facade import key_argument, shell_run_of, shown_text, stored_tool_result
from wave_tui.session.types import Message
from wave_tui.tui.format import show_key_arg, shown_tool_output
from wave_tui.tui.widgets.chat_items import AssistantMessage, ToolBlock, UserMessage
from wave_tui.tui.widgets.shell_block import ShellBlock


async def show_messages(
    messages: list[Message], append: Callable[[Widget], Awaitable[None]], paths: WavePaths
) -> None:
    """Append the blocks of `messages` in order (a tool block is mounted before its result
    fills it in, as live)."""
    calls: dict[str, ToolBlock] = {}
    for message in messages:
        if message.is_meta:
            continue
        if message.role == "user" and (run := shell_run_of(message)) is not None:
            await append(ShellBlock.finished(run))
        elif message.role == "user":
            await append(UserMessage(shown_text(message)))
        elif message.role == "assistant":
            if message.content or message.reasoning:
                await append(AssistantMessage(message.id, message.content, message.reasoning or ""))
            for call in message.tool_calls:
                calls[call.id] = ToolBlock(
                    call.id, call.name, _key_arg(call.name, call.arguments, paths)
                )
                await append(calls[call.id])
        elif message.role == "tool" and (tool := calls.pop(message.tool_call_id or "", None)):
            stored = stored_tool_result(message)
            output = shown_tool_output(tool.tool_name, message.content, paths)
            tool.finish(stored.summary, output, stored.is_error, stored.diff)


def _key_arg(name: str, arguments: str, paths: WavePaths) -> str:
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return ""
    return show_key_arg(key_argument(name, args), paths) if isinstance(args, dict) else ""
