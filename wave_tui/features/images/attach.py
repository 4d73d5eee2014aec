"""`@img.png` in a prompt (IM2): the image is attached to the user message, encoded once; the
app's pasted paths and clipboard images become such an `@path` too, so one road serves all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from wave_tui.agent.attachments import ATTACHED_BLOCK
from wave_tui.features.commands.inline_input import ATTACHMENT
from wave_tui.files.images import is_image_path
from wave_tui.llm.types import ImagePart, Message
from wave_tui.tools.base import ToolError

MAX_ATTACHED_IMAGES = 20


def image_paths(text: str, root: Path) -> list[Path]:
    """The image files a prompt names as `@path` (relative to the root, or absolute)."""
    typed = ATTACHED_BLOCK.sub("", text)  # never an `@` inside an attached text file
    found: list[Path] = []
    for match in ATTACHMENT.finditer(typed):
        name = match.group(1).replace("\\ ", " ").rstrip(".,;:!?)")
        path = (root / Path(name).expanduser()).resolve()
        if is_image_path(path) and path not in found:
            found.append(path)
    return found[:MAX_ATTACHED_IMAGES]


class ImageAttachments:
    """A `PromptAttachments` extension: the prompt's `@image` files as image parts."""

    def __init__(self, root: Path, notify: Callable[[str, str], None]) -> None:
        self.root = root
        self.notify = notify

    # req: IM2
    async def attach(self, message: Message) -> Message:
        paths = image_paths(message.content, self.root)
        if not paths:
            return message
        from wave_tui.tools.image_read import load_image_part  # only when an image is named

        images: list[ImagePart] = []
        for path in paths:
            if not path.is_file():
                continue
            try:
                images.append(await load_image_part(path))
            except ToolError as exc:
                self.notify("warning", f"not attached: {exc}")
        if not images:
            return message
        return message.model_copy(update={"images": [*(message.images or ()), *images]})
