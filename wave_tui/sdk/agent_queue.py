"""The queue's and the running turn's side of an `Agent` (004 §2–§3): the waiting messages
(read, remove, edit, recall) and stopping what runs by its kind.

`agent.py` puts messages into the queue and runs them (`send_message`, `stream`, `bang`); this
class is what a program does with the queue meanwhile. The helpers turn a message and its
images into the text a turn gets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from wave_tui.sdk.agent_extras import AgentExtras
from wave_tui.sdk.message_queue import QueuedMessage, QueuedType


class AgentQueue(AgentExtras):
    """The part of `Agent` that is the message queue and the aborts (see `Agent`)."""

    # -- the queue (004 §3) --------------------------------------------------------------------
    # req: SX1
    @property
    def queued_messages(self) -> list[QueuedMessage]:
        """The messages waiting for the running turn, oldest first (the running one is not
        among them)."""
        self._check()
        return self._queue.waiting

    def remove_queued_message(self, index: int) -> bool:
        """Take the waiting message at `index` out; False when there is none."""
        self._check()
        return self._queue.remove(index)

    def remove_queued_message_by_id(self, message_id: str) -> bool:
        self._check()
        return self._queue.remove_by_id(message_id)

    def update_queued_message_by_id(
        self,
        message_id: str,
        *,
        content: str | None = None,
        images: Sequence[str | Path] | None = None,
        type: QueuedType | None = None,
    ) -> bool:
        """Change a waiting message's content, images or type in place (its turn in the queue
        stays); False when no waiting message has that id."""
        self._check()
        with_images(content if content is not None else "", images)
        return self._queue.update_by_id(
            message_id,
            content=content,
            images=image_paths(images) if images is not None else None,
            kind=type,
        )

    def recall_queued_message(self) -> QueuedMessage | None:
        """The message removed from the queue last (to edit and send again), or None."""
        self._check()
        return self._queue.recall()

    # req: SX4
    def abort(self) -> None:
        """Stop the running turn (its open tool calls are closed as interrupted)."""
        self._check()
        self._session.abort()

    def abort_message(self) -> None:
        """004's name for `abort`: stop whatever message runs now."""
        self.abort()

    def abort_ai_message(self) -> bool:
        """Stop the model's turn now running; False (nothing stopped) when none runs or what
        runs is a command."""
        return self._abort_running(lambda m: m.type == "message" and not is_slash(m))

    def abort_bash_command(self) -> bool:
        """Stop the `bang()` command now running; False when none runs."""
        return self._abort_running(lambda m: m.type == "bash")

    def abort_slash_command(self) -> bool:
        """Stop the slash command now running; False when none runs."""
        return self._abort_running(is_slash)

    def _abort_running(self, which: Callable[[QueuedMessage], bool]) -> bool:
        self._check()
        running = self._queue.running
        if running is None or not which(running):
            return False
        self._session.abort()
        return True


def is_slash(message: QueuedMessage) -> bool:
    return message.type == "message" and message.content.lstrip().startswith("/")


def image_paths(images: Sequence[str | Path] | None) -> tuple[str, ...]:
    return tuple(str(Path(i).resolve()) for i in images or ())


def with_images(text: str, images: Sequence[str | Path] | None) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    if images is None:
        return text
    if isinstance(images, (str, Path)) or not isinstance(images, Sequence):
        raise TypeError("images must be a list of file paths")
    mentions = []
    for image in images:
        if not isinstance(image, (str, Path)):
            raise TypeError(f"images must hold file paths, not {type(image).__name__}")
        if not Path(image).is_file():
            raise ValueError(f"image is not a file: {image}")
        mentions.append("@" + str(Path(image).resolve()).replace(" ", "\\ "))
    return " ".join([text, *mentions])
