from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest

from tests.processes import alive
from wave_tui.tools.base import ToolContext
from wave_tui.tools.bash import MAX_OUTPUT_CHARS, BashTool


async def bash(ctx: ToolContext, command: str, **args: object):
    return await BashTool().run({"command": command, **args}, ctx)


async def test_runs_in_the_work_dir_and_returns_output(ctx: ToolContext) -> None:
    result = await bash(ctx, "pwd")
    assert not result.is_error
    assert result.content == str(ctx.workdir)


async def test_stdout_and_stderr_are_combined(ctx: ToolContext) -> None:
    result = await bash(ctx, "echo out; echo err >&2; echo out2")
    assert result.content.splitlines() == ["out", "err", "out2"]


async def test_non_zero_exit_code_is_reported(ctx: ToolContext) -> None:
    result = await bash(ctx, "echo failing; exit 3")
    assert result.is_error
    assert result.content == "failing\n\nExit code: 3"


async def test_environment_includes_context_env(ctx: ToolContext) -> None:
    ctx.env = {"WAVE_TEST_VALUE": "from-settings"}
    assert (await bash(ctx, "echo $WAVE_TEST_VALUE")).content == "from-settings"


async def test_stdin_is_closed(ctx: ToolContext) -> None:
    result = await bash(ctx, "cat", timeout=5)
    assert not result.is_error and result.content == "(no output)"


async def test_non_utf8_output_is_decoded_with_replacement(ctx: ToolContext) -> None:
    result = await bash(ctx, r"printf 'caf\xe9\n'")
    assert result.content == "caf\ufffd"


async def test_long_output_keeps_head_and_tail(ctx: ToolContext) -> None:
    result = await bash(ctx, "echo START; head -c 100000 /dev/zero | tr '\\0' x; echo; echo END")
    assert len(result.content) < MAX_OUTPUT_CHARS + 200
    assert result.content.startswith("START")
    assert result.content.endswith("END")
    assert "truncated" in result.content


async def test_timeout_kills_the_whole_process_group(ctx: ToolContext) -> None:
    pid_file = ctx.workdir / "pids"
    started = time.monotonic()
    result = await bash(ctx, f"sleep 30 & echo $! > {pid_file}; sleep 30", timeout=0.5)
    assert time.monotonic() - started < 10
    assert result.is_error and "timed out" in result.content
    child = int(pid_file.read_text())
    for _ in range(50):
        if not alive(child):
            break
        await asyncio.sleep(0.05)
    assert not alive(child)


async def test_abort_event_stops_the_command_promptly(ctx: ToolContext) -> None:
    pid_file = ctx.workdir / "pids"

    async def abort_soon() -> None:
        while not (pid_file.exists() and pid_file.read_text().strip()):
            await asyncio.sleep(0.02)
        ctx.abort.set()

    started = time.monotonic()
    result, _ = await asyncio.gather(
        bash(ctx, f"sleep 30 & echo $! > {pid_file}; sleep 30"), abort_soon()
    )
    assert time.monotonic() - started < 10
    assert result.is_error and "aborted" in result.content
    await asyncio.sleep(0.2)
    assert not alive(int(pid_file.read_text()))


async def test_background_children_do_not_block_the_result(ctx: ToolContext) -> None:
    started = time.monotonic()
    result = await bash(ctx, "sleep 3 & echo done")
    assert result.content == "done"
    assert time.monotonic() - started < 2.5


async def test_run_in_background_returns_pid_and_log_at_once(ctx: ToolContext) -> None:
    tool = BashTool()
    started = time.monotonic()
    result = await tool.run({"command": "echo hello-bg; sleep 30", "run_in_background": True}, ctx)
    assert time.monotonic() - started < 2
    pid = int(re.search(r"pid (\d+)", result.content).group(1))  # type: ignore[union-attr]
    log = Path(re.search(r"written to (\S+?);", result.content).group(1))  # type: ignore[union-attr]
    for _ in range(100):
        if "hello-bg" in log.read_text(encoding="utf-8"):
            break
        await asyncio.sleep(0.02)
    assert "hello-bg" in log.read_text(encoding="utf-8")
    assert pid in [task.pid for task in tool.background.tasks()]
    await tool.background.aclose()
    for _ in range(100):
        if not alive(pid):
            break
        await asyncio.sleep(0.02)
    assert not alive(pid)


async def test_bad_arguments(ctx: ToolContext) -> None:
    assert (await BashTool().run({}, ctx)).is_error
    assert (await bash(ctx, "   ")).is_error
    assert (await bash(ctx, "true", timeout="soon")).is_error
    assert (await bash(ctx, "true", timeout=-1)).is_error


@pytest.mark.parametrize("description", [" ", "", "\n", " \n\t", None])
async def test_blank_description_falls_back_to_the_command(
    ctx: ToolContext, description: str | None
) -> None:
    # Bug: `"description": " "` raised IndexError ("".splitlines()[0]).
    result = await bash(ctx, "echo hi", description=description)
    assert (result.is_error, result.content, result.summary) == (False, "hi", "1 line of output")


async def test_description_label_is_its_first_non_blank_line(ctx: ToolContext) -> None:
    result = await bash(ctx, "echo hi", description="\n  List files  \nmore")
    assert result.summary == "List files"
    assert (await bash(ctx, "true")).summary == "no output"
    assert (await bash(ctx, "printf 'a\\nb\\n'; exit 3")).summary == (
        "2 lines of output (Exit code: 3)"
    )
    background = await bash(ctx, "true", description=" ", run_in_background=True)
    assert background.summary.startswith("true (background")


@pytest.mark.parametrize(
    "args",
    [
        {"command": "echo a\x00b"},
        {"command": "true", "timeout": float("nan")},
        {"command": "true", "description": 3},
        {"command": ["ls"]},
        {"command": "true", "run_in_background": "maybe"},
    ],
)
async def test_odd_argument_shapes_are_clean_errors(ctx: ToolContext, args: dict) -> None:
    result = await BashTool().run(args, ctx)
    assert result.is_error
    assert "failed:" not in result.content  # a ToolError message, not a caught exception
