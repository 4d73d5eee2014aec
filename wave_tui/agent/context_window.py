"""The model's context window as this session knows it: the configured limit, lowered by what
the endpoint said — Ollama's `num_ctx` (probed once, PV11) or the numbers of a context-length
refusal (CV11) — and how the endpoint's token count compares with our estimate of a request.

`limit()` is the window in the endpoint's tokens (the status line's ctx %, `/context`, the
compaction threshold); `budget()` is what an *estimated* request may hold so that the endpoint's
own count still fits with room for the reply (compaction fits its result to it).
"""

from __future__ import annotations

from wave_tui.config.records import record
from wave_tui.llm.errors import ContextLengthExceeded

REPLY_SHARE = 0.15  # of the window kept free for the reply and the estimate's error
MAX_SCALE = 3.0  # a refusal claiming more than this many tokens per estimated one is not used


@record(frozen=False)
class _Facts:
    probed: int | None = None  # Ollama's num_ctx
    stated: int | None = None  # the window a refusal stated
    bound: int | None = None  # a refusal without a number: the window is below this request
    scale: float = 1.0  # endpoint tokens per estimated token, never below 1 (CV11)


class ContextWindows:
    """Per model, what the endpoint said about its window; kept for the session's life (a
    `/clear` starts a new conversation on the same model)."""

    def __init__(self) -> None:
        self._facts: dict[str, _Facts] = {}
        self._probed: set[str] = set()

    def _of(self, model: str) -> _Facts:
        return self._facts.setdefault(model, _Facts())

    # -- Ollama's probe ------------------------------------------------------------------------
    def was_probed(self, model: str) -> bool:
        return model in self._probed

    def set_probed(self, model: str, window: int | None) -> None:
        self._probed.add(model)
        self._of(model).probed = window

    def probed(self, model: str | None) -> int | None:
        return self._facts[model].probed if model in self._facts else None

    # -- refusals ------------------------------------------------------------------------------
    # req: CV11
    def learn(self, model: str, error: ContextLengthExceeded, sent_tokens: int) -> int | None:
        """What a refusal of a request of `sent_tokens` (our estimate) teaches; the window now
        known (None when the refusal said nothing usable)."""
        facts = self._of(model)
        if error.window is not None:
            # The server's own word: what an earlier refusal implied (maybe of a server since
            # restarted with another context size) no longer holds.
            facts.stated, facts.bound = error.window, None
        else:
            refused = error.prompt_tokens or sent_tokens
            if refused > 0:
                facts.bound = min(facts.bound or refused, refused)
        if error.prompt_tokens and sent_tokens > 0:
            ratio = error.prompt_tokens / sent_tokens
            if ratio <= MAX_SCALE:
                facts.scale = max(facts.scale, ratio)
        return self.known(model)

    def known(self, model: str | None) -> int | None:
        """The window the endpoint stated or implied for `model`, if any."""
        if model is None or model not in self._facts:
            return None
        facts = self._facts[model]
        found = [w for w in (facts.probed, facts.stated, facts.bound) if w]
        return min(found) if found else None

    # -- what they mean ------------------------------------------------------------------------
    def limit(self, model: str | None, configured: int) -> int:
        """The window in force: the configured one, or less when the endpoint said so."""
        known = self.known(model)
        return min(configured, known) if known else configured

    def budget(self, model: str | None, limit: int) -> int:
        """Estimated tokens a request to `model` may hold within `limit` (reply room kept)."""
        scale = self._facts[model].scale if model in self._facts else 1.0
        return int(limit * (1 - REPLY_SHARE) / scale)
