"""The session's worktree: entering one (git or a `WorktreeCreate` hook), leaving it (keep or
remove), and what the loop sees of it — the two tools, the status line's name, a line of the
dynamic system block, and `wave --worktree NAME` entered as the session starts.

The working directory itself lives in one place, the main pipeline's tool contexts: moving is
`AgentService.move_workdir`, which the tools, Bash, `!cmd`, the permission policy and the memory
injection (nested AGENTS.md, rules) follow. Auto memory is not moved: the project id is the main
repository's for every worktree of it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from wave_tui.agent.extensions import ContextSourceBase, StatusContribution
from wave_tui.config.paths import display_path
from wave_tui.config.records import record
from wave_tui.features.user_hooks import UserHooks
from wave_tui.features.worktrees import git_worktrees as git
from wave_tui.features.worktrees.git_worktrees import WorktreeError
from wave_tui.tools.base import Tool

if TYPE_CHECKING:
    from wave_tui.agent.service import AgentService
    from wave_tui.config.settings import EffectiveSettings

ExitAction = Literal["keep", "remove"]
# `EnterWorktree` makes a new worktree; `wave --worktree NAME` also goes back into one it made;
# the SDK's `is_new_worktree` asks for exactly one of the two.
Making = Literal["new", "new_or_existing", "existing"]
DIRTY_SHOWN = 5  # uncommitted files named in the refusal


@record
class ActiveWorktree:
    name: str
    path: Path
    repo_root: Path
    origin: Path  # where the session worked before it entered
    hook_based: bool  # made by a WorktreeCreate hook: removed by WorktreeRemove hooks only


class WorktreeSession(ContextSourceBase):
    """ToolProvider (EnterWorktree, ExitWorktree), StatusSource (its name) and ContextSource (a
    line of the dynamic block); `enter_start` is `wave --worktree NAME`, called by the session
    as it starts."""

    def __init__(
        self, service: AgentService, start_in: str | None = None, start_making: Making | None = None
    ) -> None:
        self.service = service
        self.active: ActiveWorktree | None = None
        self._start_in = start_in
        self._start_making: Making = start_making or "new_or_existing"
        self._lock = asyncio.Lock()  # one move at a time (parallel tool calls)
        self._tools: list[Tool] | None = None

    @property
    def current_name(self) -> str | None:
        return None if self.active is None else self.active.name

    # -- loop seams ----------------------------------------------------------------------------
    def tools(self) -> Sequence[Tool]:
        if self._tools is None:
            from wave_tui.features.worktrees.tools import EnterWorktreeTool, ExitWorktreeTool

            self._tools = [EnterWorktreeTool(self), ExitWorktreeTool(self)]
        return self._tools

    def status(self) -> StatusContribution:
        return StatusContribution(worktree=self.current_name)

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        active = self.active
        if active is None:
            return []
        return [
            f"You are working in the git worktree `{active.name}` at {active.path} (branch "
            f"{git.branch_name(active.name)}); the main checkout is {active.origin}. Every "
            "tool and Bash command runs in the worktree."
        ]

    # req: WT1
    # req: FH2
    async def enter_start(self) -> str | None:
        """`wave --worktree NAME`: into the worktree before anything runs (the status line,
        `!cmd`, `@file` and the first turn all see it); the problem as one line, or None."""
        name, self._start_in = self._start_in, None
        if name is None or self.active is not None:
            return None
        try:
            await self.enter(name, self._start_making)
        except WorktreeError as exc:
            return f"--worktree {name}: {exc}"
        return None

    # -- moving --------------------------------------------------------------------------------
    def _hooks(self) -> UserHooks | None:
        return self.service.extensions.of_type(UserHooks)

    # req: WT4
    async def enter(self, name: str | None, making: Making = "new") -> str:
        """Make (or reuse, for `--worktree`) the worktree and move the session into it."""
        async with self._lock:
            if self.active is not None:
                raise WorktreeError(f"already in worktree {self.active.name!r}; ExitWorktree first")
            name = git.check_name(name) if name is not None else git.new_name()
            here = self.service.workdir
            repo_root = await asyncio.to_thread(git.repository_root, here)
            top = await asyncio.to_thread(lambda: self.service.paths.repo_top)
            if top is not None and top != repo_root:
                raise WorktreeError(f"already in a git worktree ({top}); start from the main one")
            base_ref, problem = git.base_ref_setting(self.service.settings.extras)
            if problem is not None:
                self.service.notify("warning", problem)
            hooks = self._hooks()
            # Going back into a worktree makes nothing: no WorktreeCreate hook runs.
            hook_path = (
                await hooks.run_worktree_create(name, base_ref, repo_root)
                if hooks is not None and making != "existing"
                else None
            )
            if hook_path == "":
                raise WorktreeError("no WorktreeCreate hook gave a worktree path; none was made")
            if hook_path is not None:
                path = await asyncio.to_thread(git.hook_worktree_path, hook_path)
                made = f"Worktree {name} made by the WorktreeCreate hook at {path}."
            else:
                existing = await asyncio.to_thread(git.existing_worktree, repo_root, name)
                if making != "new" and existing is not None:
                    path = existing
                    made = f"Worktree {name} at {path} (existing)."
                elif making == "existing":
                    raise WorktreeError(f"no worktree {name!r} to go back into")
                else:
                    base = await asyncio.to_thread(git.resolve_base, repo_root, base_ref)
                    path = await asyncio.to_thread(git.add_worktree, repo_root, name, base)
                    made = (
                        f"Created worktree {name} at {path} on branch {git.branch_name(name)} "
                        f"(from {base})."
                    )
            old = self.service.move_workdir(path)
            self.active = ActiveWorktree(name, path, repo_root, old, hook_path is not None)
        await self._cwd_changed(old, path)
        self.service.notify(
            "worktree", f"working in worktree {name} ({display_path(path, repo_root)})"
        )
        return f"{made} The session now works there: tools, Bash and project memory use it."

    # req: WT5
    async def leave(self, action: ExitAction, *, discard_changes: bool) -> str:
        """Back to where the session was; `remove` deletes the worktree unless it holds
        uncommitted work (untracked files too) and `discard_changes` is not set."""
        async with self._lock:
            active = self.active
            if active is None:
                raise WorktreeError("not in a worktree: nothing to leave (EnterWorktree first)")
            if action == "remove" and not discard_changes and not active.hook_based:
                dirty = await asyncio.to_thread(git.uncommitted_work, active.path)
                if dirty:
                    shown = ", ".join(line[3:] for line in dirty[:DIRTY_SHOWN])
                    more = (
                        f" and {len(dirty) - DIRTY_SHOWN} more" if len(dirty) > DIRTY_SHOWN else ""
                    )
                    raise WorktreeError(
                        f"worktree {active.name!r} has uncommitted work ({shown}{more}); "
                        "commit it, keep the worktree, or pass discard_changes: true"
                    )
            self.service.move_workdir(active.origin)
            self.active = None
        await self._cwd_changed(active.path, active.origin)
        if action == "keep":
            note = f"Left worktree {active.name}; it stays at {active.path}"
            note += f" on branch {git.branch_name(active.name)}."
        elif active.hook_based:
            hooks = self._hooks()
            ran = hooks is not None and await hooks.run_worktree_remove(active.name, active.path)
            note = f"Left worktree {active.name}; " + (
                "the WorktreeRemove hooks removed it."
                if ran
                else "no WorktreeRemove hook is configured, so it stays."
            )
        else:
            try:
                branch = await asyncio.to_thread(
                    git.remove_worktree, active.repo_root, active.path, active.name
                )
            except WorktreeError as exc:
                # The session is back in the main checkout either way: say so with the failure.
                raise WorktreeError(
                    f"left worktree {active.name!r} for {active.origin}, but it is still there: "
                    f"{exc}"
                ) from exc
            note = f"Removed worktree {active.name} ({branch})."
        self.service.notify("worktree", note)
        return f"{note} The session works in {active.origin} again."

    async def _cwd_changed(self, old: Path, new: Path) -> None:
        hooks = self._hooks()
        if hooks is not None:
            await hooks.run_cwd_changed(old, new)
