"""Announce finished background commands to the model (BG3), and to the user at once.

Before each request, every command that finished since the last request becomes one block of a
single persisted isMeta user message. Stopped commands are never announced. Pending completions
live in the manager, not in the conversation, so `/clear` keeps them; while a turn is being
aborted nothing is taken, and they join the next request instead. The user sees each finish
when it happens, as a `BackgroundCommandFinished` event (the chat's one-line notice).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from wave_tui.agent import events as ev
from wave_tui.llm.types import Message
from wave_tui.tools.background import BackgroundManager, BackgroundTask

if TYPE_CHECKING:
    from wave_tui.config.settings import EffectiveSettings

NOTIFICATION_HEADER = "A background task completed:"
AGENT_NOTIFICATION_HEADER = "A background agent completed a task:"


def escape(text: str) -> str:
    """`&`, `<` and `>` as entities: what `xml.sax.saxutils.escape` does, without importing the
    xml.sax package on every start."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def notification_block(task: BackgroundTask) -> str:
    return (
        "<task-notification>\n"
        f"<task-id>{escape(task.id)}</task-id>\n"
        f"<task-type>{task.kind}</task-type>\n"
        f"<status>{task.status}</status>\n"
        f"<summary>{escape(task.summary)}</summary>\n"
        f"<output-file>{escape(str(task.output_file))}</output-file>\n"
        "</task-notification>"
    )


# req: BA2
def notification_message(tasks: Sequence[BackgroundTask]) -> Message:
    body = "\n".join(notification_block(t) for t in tasks)
    agents = any(t.kind == "agent" for t in tasks)
    header = AGENT_NOTIFICATION_HEADER if agents else NOTIFICATION_HEADER
    return Message.user(f"{header}\n{body}", is_meta=True, taskNotification=[t.id for t in tasks])


def _never() -> bool:
    return False


class BackgroundNotifier:
    """A `ContextSource` and `SessionObserver`. `aborting` tells whether the turn is being
    aborted (e.g. `lambda: service.abort_requested`)."""

    def __init__(self, manager: BackgroundManager, aborting: Callable[[], bool] = _never) -> None:
        self.manager = manager
        self._aborting = aborting
        self._shown: set[str] = set()  # finished ids the user was told of

    # req: FH8
    def show_finished(
        self, publish: Callable[[ev.AgentEvent], None], wake: Callable[[], None] | None = None
    ) -> None:
        """Tell `publish` of every command that finishes by itself from now on (stopped ones
        are the user's own doing: TaskStop's result says so). A background agent's end also
        `wake`s an idle session, so the model hears of it without the user typing."""

        def changed(tasks: list[BackgroundTask]) -> None:
            for task in tasks:
                if task.status in ("completed", "failed") and task.id not in self._shown:
                    self._shown.add(task.id)
                    if task.kind == "agent":  # no exit code: its summary says how it ended
                        publish(ev.Notice("background", f"{task.summary} · {task.id}"))
                        if wake is not None:
                            wake()
                    else:
                        publish(ev.BackgroundCommandFinished(task.id, task.label, task.exit_code))

        self.manager.subscribe(changed)

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        return []

    def prepend_reminder(self) -> str | None:
        return None

    # req: BG3
    def before_request(self) -> list[Message]:
        if self._aborting():
            return []
        done = self.manager.take_completions()
        return [notification_message(done)] if done else []

    def on_settings(self, settings: EffectiveSettings) -> None:
        return None

    def on_messages_restored(self, messages: list[Message]) -> None:
        return None  # /clear, resume, compaction: pending completions stay queued

    async def aclose(self) -> None:
        await self.manager.aclose()
