"""What a user message carries beside the words typed, and how the chat shows it again.

One home for the `<attached-file>` wrapper of an `@path` (the input layer writes it, the chat
shows the message without it, the loop takes a failed prompt back without it, the memory
observers find the attached paths through it), and for the typed text a custom command keeps
(`/review src/x.py`, while its expanded body is what is sent).
"""

from __future__ import annotations

import re
from pathlib import Path

from wave_tui.llm.types import ImagePart, Message

TYPED_META = "typed"  # a custom command's message: what the user typed (the body was sent)
ATTACHED_MARK = re.compile(r'^<attached-file path="([^"\n]+)">$', re.MULTILINE)


# The line that ends an attachment shown in part (a long file, a big folder).
CUT_MARK = "… (cut: "


def attached_block(path: Path, shown: str) -> str:
    """One attached file as the message carries it."""
    return f'<attached-file path="{path}">\n{shown}\n</attached-file>'


def attached_paths(message: str) -> list[Path]:
    """The files `attach_files` appended to a message (for the observers a Read would reach;
    an attached folder's listing is not a Read)."""
    return [Path(found) for found in ATTACHED_MARK.findall(message) if not Path(found).is_dir()]


ATTACHED_BLOCK = re.compile(
    r'\n\n<attached-file path="([^"\n]+)">\n.*?\n</attached-file>(?=\n\n<attached-file|\Z)',
    re.DOTALL,
)


def without_attachments(message: str) -> str:
    """The message as the user typed it, each attached file as one line (for the chat view),
    marked when only part of it was attached."""
    lines = [
        f"\n(attached: {Path(found.group(1)).name}"
        + (", in part" if f"\n{CUT_MARK}" in found.group(0) else "")
        + ")"
        for found in ATTACHED_BLOCK.finditer(message)
    ]
    return ATTACHED_BLOCK.sub("", message) + "".join(lines)


def prompt_message(text: str, typed: str) -> Message:
    """The user message of a prompt; one a custom command expanded keeps what was typed
    (`/review src/x.py`) for the chat, which shows that rather than the body sent."""
    meta = {TYPED_META: typed} if typed != text else {}
    return Message(role="user", content=text, meta=meta)


# req: IM7
def shown_text(message: Message) -> str:
    """A user message as the chat shows it: what was typed (a custom command's `/name args`,
    not its expanded body), each attached file and image as one line."""
    typed = message.meta.get(TYPED_META)
    text = typed if isinstance(typed, str) else without_attachments(message.content or "")
    return text + "".join(f"\n{image_line(image)}" for image in message.images or ())


def image_line(image: ImagePart) -> str:
    """`(image: ui.png, 1280×800, 312 KB)`: an attached image in the chat."""
    size = f"{image.original_width}×{image.original_height}"
    return f"(image: {image.name}, {size}, {max(1, round(image.byte_size / 1024))} KB)"
