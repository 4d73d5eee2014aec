"""The start screen of an empty chat: the project folder, the model and two tips; it goes with
the first message.
"""

from __future__ import annotations

from pathlib import Path

from textual.content import Content
from textual.widgets import Static

TIPS = (
    "/help for commands  ·  # to remember  ·  F2 memory  ·  F3 settings",
    "@file attaches  ·  !cmd runs a shell command  ·  Shift+Tab permission mode",
)


def project_label(root: Path, home: Path) -> str:
    """The project folder as the user names it: `~/…` under home, else the full path."""
    if root == home:
        return "~"
    if root.is_relative_to(home):
        return "~/" + root.relative_to(home).as_posix()
    return str(root)


class StartPanel(Static):
    DEFAULT_CSS = """
    StartPanel {
        margin: 1 0 0 0;
        padding: 0 1;
        border: round $primary-muted;
        color: $text-muted;
        height: auto;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._shown: tuple[str, str | None] | None = None

    # req: FH2
    def show_info(
        self, root: Path, home: Path, model: str | None, worktree: str | None = None
    ) -> None:
        """The folder (and the worktree the session works in, `wave --worktree NAME`), the
        model."""
        folder = project_label(root, home)
        shown = (folder if worktree is None else f"{folder}  ⎇ {worktree}", model)
        if shown == self._shown:
            return
        self._shown = shown
        folder, model_name = shown
        self.update(
            Content.assemble(
                ("wave", "bold $text"),
                "  ",
                (folder, "$text"),
                "\n",
                ("model ", "$text-muted"),
                (model_name or "none", "$text"),
                "\n\n",
                "\n".join(TIPS),
            )
        )
