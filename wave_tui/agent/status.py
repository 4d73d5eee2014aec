"""The agent's state as the UI shows it: one frozen value, rebuilt whenever something changed."""

from __future__ import annotations

from wave_tui.config.modes import PermissionMode
from wave_tui.config.records import record
from wave_tui.llm.types import Usage


@record
class AgentStatus:
    """Everything the status line, the quit flow and `/status`-like views need (U2)."""

    model: str | None  # None: no model configured (chat cannot run)
    configured: bool
    busy: bool
    context_tokens: int | None  # prompt + completion of the last reply; None before any reply
    context_window: int | None  # the input-token limit in force for the model
    context_estimated: bool  # True when `context_tokens` is an estimate, not a reported usage
    cache_hit_ratio: float | None  # cached / prompt tokens of the last reply (0..1)
    auto_memory: bool
    auto_memory_frequency: int
    turns_until_extraction: int | None  # None: auto memory off, or not known yet
    extraction_running: bool
    compacting: bool
    permission_mode: PermissionMode
    queue: tuple[str, ...]
    background: str | None  # what runs in the background ("extraction: …"), None when idle
    worktree: str | None = None  # the git worktree the session works in (its name)
    memory_writes: str = "auto"  # autoMemoryWrites in force: auto | review | off

    @property
    def cache_hit_percent(self) -> int | None:
        return None if self.cache_hit_ratio is None else round(100 * self.cache_hit_ratio)

    @property
    def background_busy(self) -> bool:
        """Background work that exit must wait for (a memory extraction in flight, C4)."""
        return self.extraction_running


def context_tokens(usage: Usage | None) -> int | None:
    """Tokens in the context after the last reply (prompt + completion)."""
    if usage is None:
        return None
    return usage.prompt_tokens + usage.completion_tokens


def cache_hit_ratio(usage: Usage | None) -> float | None:
    if usage is None or not usage.prompt_tokens:
        return None
    return usage.cache_read_tokens / usage.prompt_tokens


def cache_hit_percent(usage: Usage | None) -> int | None:
    ratio = cache_hit_ratio(usage)
    return None if ratio is None else round(100 * ratio)
