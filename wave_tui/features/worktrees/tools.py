"""The `EnterWorktree` and `ExitWorktree` tools: the model's door to the session's worktree.

Each is a thin typed front of `WorktreeSession` (`session.py`): the arguments, the
descriptions, a refusal as an error result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from wave_tui.features.worktrees.git_worktrees import WorktreeError
from wave_tui.permissions.tool_table import ENTER_WORKTREE, EXIT_WORKTREE
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    from wave_tui.features.worktrees.session import WorktreeSession

ENTER_DESCRIPTION = (
    "Create a git worktree under .wave/worktrees/<name> on a new branch wave/<name> and move "
    "this session into it: from then on every tool, Bash and memory of the project use the "
    "worktree. Use it when the user asks to work in a worktree or in isolation. Needs a git "
    "repository, and the session must not be in a worktree already."
)
EXIT_DESCRIPTION = (
    "Leave the worktree EnterWorktree made and return to the main checkout. action `keep` "
    "leaves the worktree and its branch on disk; `remove` deletes it, and refuses when it has "
    "uncommitted changes (untracked files too) unless discard_changes is true."
)


@tool_arguments
class EnterWorktreeArgs:
    name: Annotated[
        str | None,
        Arg("Worktree name: letters, digits, '.', '_' or '-' (made up when omitted)."),
    ] = None


@tool_arguments
class ExitWorktreeArgs:
    action: Annotated[
        Literal["keep", "remove"] | None,
        Arg("`keep` the worktree on disk or `remove` it (default: remove, or keep if `keep`)."),
    ] = None
    keep: Annotated[bool | None, Arg("Older form of action=keep.")] = None
    discard_changes: Annotated[
        bool, Arg("With remove: delete it even with uncommitted changes.")
    ] = False


class EnterWorktreeTool(TypedTool[EnterWorktreeArgs]):
    name = ENTER_WORKTREE
    description = ENTER_DESCRIPTION
    read_only = False
    arguments = EnterWorktreeArgs

    def __init__(self, session: WorktreeSession) -> None:
        self.session = session

    async def call(self, args: EnterWorktreeArgs, ctx: ToolContext) -> ToolResult:
        try:
            text = await self.session.enter(args.name)
        except WorktreeError as exc:
            return ToolResult(str(exc), is_error=True, summary="no worktree")
        return ToolResult(text, summary=f"in worktree {self.session.current_name}")


class ExitWorktreeTool(TypedTool[ExitWorktreeArgs]):
    name = EXIT_WORKTREE
    description = EXIT_DESCRIPTION
    read_only = False
    arguments = ExitWorktreeArgs

    def __init__(self, session: WorktreeSession) -> None:
        self.session = session

    async def call(self, args: ExitWorktreeArgs, ctx: ToolContext) -> ToolResult:
        action = args.action or ("keep" if args.keep else "remove")
        try:
            text = await self.session.leave(action, discard_changes=args.discard_changes)
        except WorktreeError as exc:
            return ToolResult(str(exc), is_error=True, summary="worktree kept")
        return ToolResult(text, summary=f"left worktree ({action})")
