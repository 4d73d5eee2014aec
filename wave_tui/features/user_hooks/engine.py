"""User hooks as loop extensions: the events of the `hooks` settings key, run as commands.

`UserHooks` is a `ToolGuard` (PreToolUse), `ToolObserver` (PostToolUse), `TurnObserver`
(UserPromptSubmit, SessionStart before the first prompt, Stop) and `SessionObserver` (SessionEnd, source of the next SessionStart). Events the loop
has no protocol for are plain async methods: `run_session_start`, `run_pre_compact`,
`run_post_compact`, `run_permission_request`, `run_subagent_stop`, `run_session_end`.

Hooks never run inside the extraction fork: the fork runs its tools directly and is given no
extensions, so nothing here is reachable from it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from wave_tui.agent.extensions import (
    ToolCallInfo,
    ToolOutcome,
    TurnContinuation,
    TurnEnd,
    TurnStart,
)
from wave_tui.config.records import record
from wave_tui.config.trust import NOT_TRUSTED_YET, TrustRequested, TrustStore
from wave_tui.features.user_hooks.config import HookConfig, HookEvent, HookSpec, Layer, parse_layers
from wave_tui.features.user_hooks.runner import HookRun, run_hook
from wave_tui.llm.types import Message
from wave_tui.permissions.tool_table import CallOnRow

if TYPE_CHECKING:
    from wave_tui.config.settings import EffectiveSettings

SessionSource = Literal["startup", "resume", "clear", "compact"]
MAX_STOP_CONTINUATIONS = 3  # a Stop hook that always exits 2 cannot loop forever
ASYNC_DRAIN_S = 5.0  # how long closing waits for async hooks still running
PROJECT_DIR_ENV = "WAVE_PROJECT_DIR"


@record
class SessionInfo:
    session_id: str
    transcript_path: Path


def trust_items(hooks: Sequence[HookSpec]) -> list[str]:
    """What a project's hook set is fingerprinted (and shown to the user) as."""
    return [f"{h.event} {h.matcher or '*'}: {h.command}" for h in hooks]


class UserHooks:
    def __init__(
        self,
        *,
        project_root: Path,
        layers: Callable[[], list[Layer]],
        session: Callable[[], SessionInfo],
        notify: Callable[[str], None],
        trust: TrustStore,
        initial_source: SessionSource = "startup",
        env: Callable[[], Mapping[str, str]] = lambda: {},
        label: Callable[[Path], str] = str,
    ) -> None:
        self.project_root = project_root
        self._layers = layers
        self._session = session
        self._notify = notify
        self.trust_store = trust
        self._env = env
        self.label = label
        self._next_source: SessionSource | None = initial_source
        self._reported: set[str] = set()
        self._tasks: set[asyncio.Task[HookRun]] = set()
        self._stop_continuations = 0
        self._trust_needed: TrustRequested | None = None

    # -- configuration -------------------------------------------------------------------------
    def config(self) -> HookConfig:
        """Every configured hook (untrusted project hooks included: `/hooks` lists them)."""
        config = parse_layers(self._layers(), self.label)
        for problem in config.problems:
            self._warn_once(problem)
        return config

    def active(self, event: HookEvent, tool_name: str | None = None) -> list[HookSpec]:
        """The hooks that run for an event now: project hooks only once their set is trusted."""
        config = self.config()
        project = [h for h in config.hooks if h.from_project]
        request = self.trust_store.request(self.project_root, "hooks", trust_items(project))
        self._trust_needed = request
        if request is not None:
            self._warn_once(
                f"project hooks not run: this project's hooks are {NOT_TRUSTED_YET} "
                f"({len(project)} configured; /hooks lists them)"
            )
        specs = config.for_event(event, tool_name)
        return [h for h in specs if request is None or not h.from_project]

    def trust_needed(self) -> TrustRequested | None:
        """The project's hook set waiting for the user's trust (the app asks once)."""
        config = self.config()
        project = [h for h in config.hooks if h.from_project]
        self._trust_needed = self.trust_store.request(
            self.project_root, "hooks", trust_items(project)
        )
        return self._trust_needed

    async def grant_trust(self, request: TrustRequested) -> None:
        await asyncio.to_thread(self.trust_store.record, request)
        self._trust_needed = None

    def _warn_once(self, line: str) -> None:
        if line not in self._reported:
            self._reported.add(line)
            self._notify(line)

    # -- running -------------------------------------------------------------------------------
    def _payload(self, event: HookEvent, **fields: Any) -> dict[str, Any]:
        # req: HK3
        info = self._session()
        return {
            "hook_event_name": event,
            "session_id": info.session_id,
            "transcript_path": str(info.transcript_path),
            "cwd": str(self.project_root),
            **fields,
        }

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self._env())
        env[PROJECT_DIR_ENV] = str(self.project_root)
        return env

    async def _run(
        self, event: HookEvent, subject: str | None = None, /, **fields: Any
    ) -> list[HookRun]:
        """Run the event's hooks (sync ones together, awaited; async ones in the background).
        `subject` is the tool name the matchers are tested against."""
        specs = self.active(event, subject)
        if not specs:
            return []
        payload = self._payload(event, **fields)
        env = self._environment()
        waited = []
        for spec in specs:
            if spec.run_async:
                task = asyncio.get_running_loop().create_task(
                    run_hook(spec, payload, self.project_root, env)
                )
                self._tasks.add(task)
                task.add_done_callback(self._async_done)
            else:
                waited.append(run_hook(spec, payload, self.project_root, env))
        runs = list(await asyncio.gather(*waited))
        for run in runs:
            line = run.warning_line()
            if line:
                self._notify(line)
        return runs

    def _async_done(self, task: asyncio.Task[HookRun]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is not None:
            return
        line = task.result().warning_line()
        if line:
            self._notify(line)

    @staticmethod
    def _blocked(runs: list[HookRun]) -> str | None:
        reasons = [
            r.stderr.strip() or f"blocked by `{r.spec.command}`"
            for r in runs
            if r.outcome == "blocked"
        ]
        return "\n".join(reasons) if reasons else None

    @staticmethod
    def _stdout(runs: list[HookRun]) -> list[str]:
        return [r.stdout.strip() for r in runs if r.outcome == "ok" and r.stdout.strip()]

    def _note_ignored_blocks(self, runs: list[HookRun]) -> None:
        for run in runs:
            if run.outcome == "blocked":
                self._notify(
                    f"{run.spec.event} hook `{run.spec.command}` exited with 2: "
                    f"{run.stderr.strip() or 'no reason given'}"
                )

    # -- events without a loop protocol (the integrator calls these) ---------------------------
    # req: HK6
    async def run_session_start(self, source: SessionSource) -> list[str]:
        """SessionStart: stdout of each hook, for the model's context (isMeta, saved)."""
        self._next_source = None
        runs = await self._run("SessionStart", source=source)
        self._note_ignored_blocks(runs)
        return self._stdout(runs)

    async def run_session_end(self, reason: str) -> None:
        self._note_ignored_blocks(await self._run("SessionEnd", reason=reason))

    # req: HK7
    async def run_pre_compact(self, trigger: Literal["manual", "auto"], custom: str | None) -> str:
        """PreCompact: stdout joins the compaction instructions (returned joined)."""
        runs = await self._run("PreCompact", trigger=trigger, custom_instructions=custom or "")
        self._note_ignored_blocks(runs)
        return "\n\n".join(self._stdout(runs))

    async def run_post_compact(self, trigger: Literal["manual", "auto"], summary: str) -> None:
        """PostCompact: the hooks get the summary."""
        self._note_ignored_blocks(await self._run("PostCompact", trigger=trigger, summary=summary))

    async def run_permission_request(self, call: CallOnRow) -> str | None:
        """PermissionRequest (before the user is asked): exit 2 denies with stderr as reason."""
        runs = await self._run(
            "PermissionRequest", call.name, tool_name=call.name, tool_input=call.args
        )
        return self._blocked(runs)

    async def run_subagent_stop(self, agent_type: str, text: str) -> str | None:
        """SubagentStop: exit 2 asks the subagent to go on (stderr as the reason)."""
        runs = await self._run(
            "SubagentStop", agent_type=agent_type, last_message=text, stop_hook_active=False
        )
        return self._blocked(runs)

    # req: WT3
    async def run_worktree_create(self, name: str, base_ref: str, repo_root: Path) -> str | None:
        """WorktreeCreate replaces `git worktree add` when a hook is configured: the first
        successful hook's stdout is the worktree's path; "" when hooks ran and none gave one
        (the creation is refused); None when no hook is configured (git creates it)."""
        if not self.active("WorktreeCreate"):
            return None
        runs = await self._run(
            "WorktreeCreate", name=name, base_ref=base_ref, repo_root=str(repo_root)
        )
        return next(iter(self._stdout(runs)), "").strip()

    async def run_worktree_remove(self, name: str, worktree_path: Path) -> bool:
        """WorktreeRemove, for a worktree a WorktreeCreate hook made, before its folder goes:
        True when a hook ran (a failure is only reported)."""
        if not self.active("WorktreeRemove"):
            return False
        runs = await self._run("WorktreeRemove", name=name, worktree_path=str(worktree_path))
        self._note_ignored_blocks(runs)
        return True

    async def run_cwd_changed(self, old: Path, new: Path) -> None:
        """CwdChanged: told, never blocking (into a worktree and back)."""
        runs = await self._run("CwdChanged", old_cwd=str(old), new_cwd=str(new))
        self._note_ignored_blocks(runs)

    # -- ToolGuard / ToolObserver --------------------------------------------------------------
    async def check(self, call: ToolCallInfo) -> str | None:
        runs = await self._run("PreToolUse", call.name, tool_name=call.name, tool_input=call.args)
        reason = self._blocked(runs)
        return None if reason is None else f"PreToolUse hook refused the call: {reason}"

    async def after_tool(self, outcome: ToolOutcome) -> None:
        call = outcome.call
        runs = await self._run(
            "PostToolUse",
            call.name,
            tool_name=call.name,
            tool_input=call.args,
            tool_response={"content": outcome.result.content, "is_error": outcome.result.is_error},
        )
        reason = self._blocked(runs)
        if reason is not None:
            outcome.follow_ups.append(
                Message.user(
                    f"PostToolUse hook feedback on {call.name}: {reason}",
                    is_meta=True,
                    userHook="PostToolUse",
                )
            )

    # -- TurnObserver --------------------------------------------------------------------------
    # req: HK6
    async def on_turn_start(self, prompt: str) -> TurnStart:
        self._stop_continuations = 0
        context: list[str] = []
        if self._next_source is not None:
            context.extend(await self.run_session_start(self._next_source))
        runs = await self._run("UserPromptSubmit", prompt=prompt)
        reason = self._blocked(runs)
        if reason is not None:
            return TurnStart(blocked=reason)
        context.extend(self._stdout(runs))
        return TurnStart(context=tuple(context))

    # req: HK8
    async def on_turn_end(self, end: TurnEnd) -> TurnContinuation | None:
        if end.status != "completed":
            return None
        active = self._stop_continuations > 0
        runs = await self._run("Stop", stop_hook_active=active, last_message=end.text)
        reason = self._blocked(runs)
        if reason is None or self._stop_continuations >= MAX_STOP_CONTINUATIONS:
            return None
        self._stop_continuations += 1
        return TurnContinuation(reason)

    # -- SessionObserver -----------------------------------------------------------------------
    def on_settings(self, settings: EffectiveSettings) -> None:
        return None

    def on_messages_restored(self, messages: list[Message]) -> None:
        """After /clear (no messages) or a compaction the next prompt starts a new SessionStart."""
        if self._next_source is None:
            self._next_source = "clear" if not messages else "compact"

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self.run_session_end("exit")
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=ASYNC_DRAIN_S)
            for task in pending:
                task.cancel()
            for task in pending:
                with contextlib.suppress(BaseException):
                    await task
