"""User hooks as loop extensions: the events of the `hooks` settings key, run as commands.

`UserHooks` is a `ToolDecider` (PreToolUse), `ToolObserver` (PostToolUse), `TurnObserver`
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

from wave_tui.agent.compaction_record import CompactionBlocked
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
from wave_tui.features.user_hooks.matching import condition_selects
from wave_tui.features.user_hooks.runner import HookRun, run_hook
from wave_tui.llm.types import Message
from wave_tui.permissions.call_facts import AnalysedCall, AnalysedUse
from wave_tui.permissions.hook_verdict import HookVerdict, merge_verdicts
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

    def active(
        self, event: HookEvent, tool_name: str | None = None, call: AnalysedCall | None = None
    ) -> list[HookSpec]:
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
        if call is not None:
            specs = [h for h in specs if condition_selects(h.condition, call)]
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
        self, event: HookEvent, subject: AnalysedCall | None = None, /, **fields: Any
    ) -> list[HookRun]:
        """Run the event's hooks (sync ones together, awaited; async ones in the background,
        their output never deciding anything). `subject` is the tool call the matchers and
        `if` filters are tested against."""
        name = subject.name if subject is not None else None
        specs = self.active(event, name, subject)
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
            self._tell(run)
        return runs

    def _tell(self, run: HookRun) -> None:
        """What the user sees of a finished hook: its failure, its `systemMessage`."""
        line = run.warning_line()
        if line:
            self._notify(line)
        if run.output is not None and run.output.system_message:
            self._notify(f"{run.spec.event} hook: {run.output.system_message}")

    def _async_done(self, task: asyncio.Task[HookRun]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is not None:
            return
        self._tell(task.result())

    @staticmethod
    def _blocked(runs: list[HookRun]) -> str | None:
        """Why the hooks block: each exit 2's stderr and each JSON `decision: "block"`'s
        reason; None when none blocks."""
        reasons = [block_reason(r) for r in runs]
        said = [reason for reason in reasons if reason is not None]
        return "\n".join(said) if said else None

    @staticmethod
    def _stdout(runs: list[HookRun]) -> list[str]:
        """For the model's context: plain stdout as it always was, and each JSON output's
        `additionalContext` (JSON itself is never pasted)."""
        out = []
        for run in runs:
            text = run.plain_stdout or (run.output.additional_context if run.output else "")
            if text:
                out.append(text)
        return out

    @staticmethod
    def _stopped(runs: list[HookRun]) -> str | None:
        """The first `continue: false` among the runs: its `stopReason`, else a default line."""
        for run in runs:
            if run.output is not None and not run.output.go_on:
                return run.output.stop_reason or f"`{run.spec.command}` said not to continue"
        return None

    def _note_ignored_blocks(self, runs: list[HookRun]) -> None:
        for run in runs:
            reason = block_reason(run)
            if reason is not None:
                how = "exited with 2" if run.outcome == "blocked" else "blocked"
                self._notify(f"{run.spec.event} hook `{run.spec.command}` {how}: {reason}")

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
    # req: MR4
    async def run_pre_compact(self, trigger: Literal["manual", "auto"], custom: str | None) -> str:
        """PreCompact: stdout (or JSON `additionalContext`) joins the compaction instructions
        (returned joined); exit 2 or `decision: "block"` stops the compaction (MR4)."""
        runs = await self._run("PreCompact", trigger=trigger, custom_instructions=custom or "")
        blocked = self._blocked(runs)
        if blocked is not None:
            raise CompactionBlocked(blocked)
        return "\n\n".join(self._stdout(runs))

    async def run_post_compact(self, trigger: Literal["manual", "auto"], summary: str) -> None:
        """PostCompact: the hooks get the summary."""
        self._note_ignored_blocks(await self._run("PostCompact", trigger=trigger, summary=summary))

    async def run_permission_request(self, call: CallOnRow) -> str | None:
        """PermissionRequest (before the user is asked): exit 2 denies with stderr as reason."""
        subject = AnalysedUse.of(call.name, call.args, self.project_root)  # for `if`
        runs = await self._run(
            "PermissionRequest", subject, tool_name=call.name, tool_input=call.args
        )
        return self._blocked(runs)

    async def run_subagent_stop(self, agent_type: str, text: str) -> str | None:
        """SubagentStop: exit 2 asks the subagent to go on (stderr as the reason)."""
        runs = await self._run(
            "SubagentStop", agent_type=agent_type, last_message=text, stop_hook_active=False
        )
        return None if self._stopped(runs) is not None else self._blocked(runs)

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
    # req: PH1
    async def decide(self, call: ToolCallInfo) -> HookVerdict:
        """PreToolUse: exit 2 denies with stderr; JSON output allows, denies, asks, replaces
        the input or stops the turn (`HookOutput.verdict`). A deny is said to the user too."""
        runs = await self._run("PreToolUse", call, tool_name=call.name, tool_input=call.args)
        verdict = merge_verdicts(pre_tool_verdict(run) for run in runs)
        if verdict.behavior == "deny":
            self._notify(f"PreToolUse hook denied {call.name}: {verdict.reason}")
        return verdict

    # req: PH1
    async def after_tool(self, outcome: ToolOutcome) -> None:
        call = outcome.call
        runs = await self._run(
            "PostToolUse",
            call,
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
        for context in self._stdout([r for r in runs if r.output is not None]):
            outcome.follow_ups.append(Message.user(context, is_meta=True, userHook="PostToolUse"))
        stop = self._stopped(runs)
        if stop is not None and outcome.stop_turn is None:
            outcome.stop_turn = stop

    # -- TurnObserver --------------------------------------------------------------------------
    # req: HK6
    async def on_turn_start(self, prompt: str) -> TurnStart:
        self._stop_continuations = 0
        context: list[str] = []
        if self._next_source is not None:
            context.extend(await self.run_session_start(self._next_source))
        runs = await self._run("UserPromptSubmit", prompt=prompt)
        reason = self._stopped(runs) or self._blocked(runs)
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
        if self._stopped(runs) is not None:
            return None  # `continue: false` wins over a block: the agent stops
        if reason is None or self._stop_continuations >= MAX_STOP_CONTINUATIONS:
            return None
        self._stop_continuations += 1
        return TurnContinuation(reason)

    # -- SessionObserver -----------------------------------------------------------------------
    def on_settings(self, settings: EffectiveSettings) -> None:
        return None

    def on_messages_restored(self, messages: list[Message]) -> None:
        """After /clear (no messages) or a compaction the next prompt starts a new SessionStart.
        A /clear after a compaction whose SessionStart has not run yet is the session the
        next prompt starts in: "clear" (a pending "startup" or "resume" stays: it never ran)."""
        if not messages and self._next_source in (None, "compact"):
            self._next_source = "clear"
        elif self._next_source is None:
            self._next_source = "compact"

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


def block_reason(run: HookRun) -> str | None:
    """Why one run blocks: exit 2 (its stderr) or JSON `decision: "block"` (its reason)."""
    if run.outcome == "blocked":
        return run.stderr.strip() or f"blocked by `{run.spec.command}`"
    if run.output is not None and run.output.blocks:
        return run.output.reason or f"blocked by `{run.spec.command}`"
    return None


# req: PH1
def pre_tool_verdict(run: HookRun) -> HookVerdict:
    """One PreToolUse run's word: exit 2 denies with stderr; JSON output says its own."""
    if run.outcome == "blocked":
        return HookVerdict("deny", run.stderr.strip() or f"blocked by `{run.spec.command}`")
    if run.output is not None:
        return run.output.verdict()
    return HookVerdict()
