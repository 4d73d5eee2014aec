"""How one agent runs: the options the front ends pass (command line, app, tests)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from wave_tui.config.clock import Clock, system_clock
from wave_tui.config.records import record
from wave_tui.permissions.policy import PermissionMode


@record(frozen=False)
class AgentOptions:
    workdir: Path
    model: str | None = None
    permission_mode: PermissionMode | None = None
    continue_last: bool = False
    resume: str | None = None
    headless: bool = False
    environ: Mapping[str, str] | None = None
    clock: Clock = system_clock
    max_input_tokens: int | None = None
    # Headless scripting (HL4–HL6): rules added to permissions.allow / deny for the whole run,
    # text appended to the dynamic system block, and a bound on main-agent model requests.
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    append_system_prompt: str | None = None
    max_turns: int | None = None
    # Model requests one turn may make before it stops and says so (None: the runner's default).
    max_rounds_per_turn: int | None = None
    # `wave --worktree NAME`: the session starts in that git worktree (made when missing).
    worktree: str | None = None
    # `wave --bare`: no hooks, plugins, MCP, LSP, custom commands, skills or project settings.
    bare: bool = False
    # Plugin folders the program loads as enabled (the SDK's `plugins`), besides the installed.
    plugin_dirs: tuple[Path, ...] = ()
    # False: the project's `.mcp.json` is not read (the SDK's `mcp_servers` replace it).
    read_mcp_json: bool = True
    # Extra HTTP headers on the model requests of a subagent, by its type (the SDK's
    # `subagent_headers`): {"Explore": {"X-Name": "value"}}.
    subagent_headers: Mapping[str, Mapping[str, str]] | None = None
    # With `worktree`: True makes a new one (refused when it exists), False goes into the one
    # there (refused when missing), None either (the SDK's `is_new_worktree`).
    new_worktree: bool | None = None
