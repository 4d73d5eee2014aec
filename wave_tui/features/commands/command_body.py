"""A command's body as Claude Code sends it: the plugin-root variables and the arguments
replaced, its `` !`cmd` `` spans and ```` ```! ```` blocks run first with their output put in
their place, and its `@path` files attached.

Each command goes through the permission policy like the model's Bash call would, with the
command's `allowed-tools` allowing more: what the policy denies is not run; what it would ask
about is asked in the app and not run in `wave -p` (nobody to ask). A command whose code is not
trusted (a project's, or a plugin the project enabled, before the user trusted it) runs none.
What is not run is one inline note in the text, so the model knows why the output is missing.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

from wave_tui.agent.local_shell import run_shell
from wave_tui.config.records import record
from wave_tui.features.commands.inline_input import attach_files
from wave_tui.features.commands.markdown_files import expand_arguments
from wave_tui.files.read_state import ReadState
from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.policy import Ask, PermissionPolicy, Resolution
from wave_tui.permissions.rules import RuleSet
from wave_tui.permissions.tool_table import BASH

ROOT_VARIABLES = ("${CLAUDE_PLUGIN_ROOT}", "${WAVE_PLUGIN_ROOT}")
# `` !`git status` `` anywhere in a line; a ```! fence on its own line up to the closing fence.
INLINE_COMMAND = re.compile(r"!`([^`\n]+)`")
BLOCK_COMMAND = re.compile(r"^```![ \t]*\n(.*?)\n?^```[ \t]*$", re.MULTILINE | re.DOTALL)
NOT_TRUSTED = "this command's code is not trusted yet (a project's or a project plugin's)"


@record
class BodyShell:
    """What running a body's commands needs from the session, read when a command runs."""

    workdir: Callable[[], Path]
    env: Callable[[], dict[str, str] | None]
    policy: PermissionPolicy
    ask: Callable[[], Ask | None]
    read_state: Callable[[], ReadState]


def has_shell(body: str) -> bool:
    """Whether the body runs anything before it is sent (what trusting the command means)."""
    return INLINE_COMMAND.search(body) is not None or BLOCK_COMMAND.search(body) is not None


def expand_root(text: str, plugin_root: Path | None) -> str:
    """`${CLAUDE_PLUGIN_ROOT}` / `${WAVE_PLUGIN_ROOT}` → the plugin's folder (a plugin's only)."""
    if plugin_root is None:
        return text
    for variable in ROOT_VARIABLES:
        text = text.replace(variable, str(plugin_root))
    return text


# req: PH3
async def render_body(
    body: str,
    args: str,
    allowed: Sequence[str],
    trusted: bool,
    shell: BodyShell | None,
) -> str:
    """The text a command sends: arguments in, commands run and replaced, `@path` attached
    (`body` already has its plugin root expanded)."""
    text = expand_arguments(body, args).strip()
    if shell is None:
        return text
    text = await _run_commands(text, allowed, trusted, shell)
    if "@" in text:
        text = attach_files(text, shell.workdir(), shell.read_state()).text
    return text


async def _run_commands(text: str, allowed: Sequence[str], trusted: bool, shell: BodyShell) -> str:
    """Each `!` span and block replaced by its output (or the note why it did not run), in
    order: a later command sees what an earlier one did (`git add` before `git status`)."""
    out: list[str] = []
    position = 0
    spans = sorted(
        [(m.start(), m.end(), m.group(1)) for m in BLOCK_COMMAND.finditer(text)]
        + [(m.start(), m.end(), m.group(1)) for m in INLINE_COMMAND.finditer(text)]
    )
    for start, end, command in spans:
        if start < position:
            continue  # a `!`x`` inside a ```! block is the block's own text
        out.append(text[position:start])
        out.append(await _run_one(command.strip(), allowed, trusted, shell))
        position = end
    out.append(text[position:])
    return "".join(out)


async def _run_one(command: str, allowed: Sequence[str], trusted: bool, shell: BodyShell) -> str:
    if not command:
        return ""
    if not trusted:
        return _note(command, NOT_TRUSTED)
    workdir = shell.workdir()
    resolution = await _resolve(command, allowed, shell, workdir)
    if resolution.refusal is not None:
        return _note(command, resolution.refusal)
    profile = resolution.profile
    argv = command
    if profile.command_prefix:  # the sandbox's wrapper, as the Bash tool runs it
        argv = shlex.join([*profile.command_prefix, "/bin/sh", "-c", command])
    env = {**(shell.env() or {}), **profile.env}
    run = await run_shell(argv, workdir, env)
    output = run.output.rstrip("\n")
    if run.ending != "exited":
        return f"{output}\n[`{command}` {run.ending}]".lstrip("\n")
    return output


async def _resolve(
    command: str, allowed: Sequence[str], shell: BodyShell, workdir: Path
) -> Resolution:
    """The policy's answer, the command's `allowed-tools` allowing what it would ask about."""
    call = AnalysedUse.of(BASH, {"command": command}, workdir)
    decision = shell.policy.verdict(call)
    if decision.behavior == "ask" and RuleSet(allowed).answer(call).allowed is not None:
        return Resolution(None, decision.profile)
    return await shell.policy.resolve(call, shell.ask())


def _note(command: str, why: str) -> str:
    return f"[`{command}` was not run: {why}]"
