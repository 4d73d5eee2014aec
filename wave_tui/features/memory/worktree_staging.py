"""Memory staged in a worktree (MR2): when `ExitWorktree` succeeds (keep or remove) and the fork
staged writes there (inbox items tagged `worktree:NAME`), the user is asked to accept them into
the shared memory, review them later (`wave memory inbox`) or drop them. Without anyone to ask
(`wave -p`, the SDK without a question handler) they stay in the inbox. The inbox lives beside
the main repository's memory, never in the worktree: removing the worktree loses nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from wave_tui.agent.extensions import ToolOutcome
from wave_tui.config.paths import WavePaths
from wave_tui.memory.inbox import WORKTREE_TAG, Inbox, InboxError, PendingWrite
from wave_tui.permissions.tool_table import EXIT_WORKTREE
from wave_tui.tools.ask_user import Question, QuestionAnswer, QuestionOption

Ask = Callable[[Sequence[Question]], Awaitable[Sequence[QuestionAnswer] | None]]

ACCEPT, REVIEW, DROP = "Accept", "Review later", "Drop"
OPTIONS = (
    QuestionOption(ACCEPT, "write them into the shared memory now"),
    QuestionOption(REVIEW, "keep them in the inbox for `wave memory inbox`"),
    QuestionOption(DROP, "discard them"),
)


class WorktreeStagingHook:
    """ToolObserver: after a successful ExitWorktree, settle the memory staged in worktrees."""

    def __init__(self, paths: WavePaths, ask: Ask | None) -> None:
        self.paths = paths
        self.ask = ask  # None: nobody to ask (headless): staged items stay in the inbox

    def _inbox(self) -> Inbox:
        paths = self.paths
        return Inbox(paths.project_dir, paths.memory_dir, paths.team_memory_dir)

    # req: MR2
    async def after_tool(self, outcome: ToolOutcome) -> None:
        if outcome.call.name != EXIT_WORKTREE or outcome.result.is_error:
            return
        staged = await asyncio.to_thread(self._staged)
        if not staged:
            return
        names = sorted({(item.tag or "").removeprefix(WORKTREE_TAG) for item in staged})
        choice = await self._choice(len(staged), names)
        note = await asyncio.to_thread(self._settle, staged, choice)
        outcome.result.content = f"{outcome.result.content}\n\n{note}"

    def _staged(self) -> list[PendingWrite]:
        return [i for i in self._inbox().items() if (i.tag or "").startswith(WORKTREE_TAG)]

    async def _choice(self, count: int, names: list[str]) -> str:
        if self.ask is None:
            return REVIEW
        where = ", ".join(names)
        question = Question(
            question=f"{count} memory write(s) were staged in worktree {where}. Accept them "
            "into the shared memory, review them later, or drop them?",
            header="Memory",
            options=OPTIONS,
        )
        answers = await self.ask([question])
        selected = answers[0].selected if answers else ()
        return selected[0] if selected else REVIEW

    def _settle(self, staged: list[PendingWrite], choice: str) -> str:
        inbox = self._inbox()
        if choice == DROP:
            for item in staged:
                inbox.reject(item.id)
            return f"Dropped {len(staged)} memory write(s) staged in the worktree."
        if choice == ACCEPT:
            written, left = [], []
            for item in staged:
                try:
                    inbox.accept(item.id)
                    written.append(item.relative)
                except InboxError as exc:
                    left.append(f"{item.relative} ({exc})")
            note = f"Accepted {len(written)} staged memory write(s): {', '.join(written)}."
            if left:
                note += f" Left in the inbox: {'; '.join(left)}."
            return note
        return (
            f"{len(staged)} memory write(s) staged in the worktree wait in the inbox "
            "(`wave memory inbox`, `wave memory accept ID`)."
        )
