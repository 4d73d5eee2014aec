"""Per-model request parameters (req: PV10): one function for every request path, and what the
client learns from a provider rejecting a parameter."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field
from typing import Any, Literal

from wave_tui.config.records import record
from wave_tui.llm.usage import estimate_prompt_tokens

TokenParam = Literal["max_tokens", "max_completion_tokens"]
TOKEN_PARAMS: tuple[TokenParam, TokenParam] = ("max_tokens", "max_completion_tokens")
# OpenAI reasoning models (and Azure deployments of them) reject `max_tokens`.
_COMPLETION_NAME_MODELS = re.compile(r"(?:^|[/:_-])(?:o\d(?:-|$)|o\d[a-z]|gpt-5)", re.IGNORECASE)
ESTIMATE_MARGIN = 0.1  # share of a window kept free when the prompt size is only estimated
MIN_OUTPUT_TOKENS = 256  # below this a clamped reply is useless: let the server say why


def token_param_for(model: str) -> TokenParam:
    return "max_completion_tokens" if _COMPLETION_NAME_MODELS.search(model) else "max_tokens"


def apply_model_options(
    body: Mapping[str, Any],
    options: Mapping[str, Any] | None,
    *,
    max_output_tokens: int | None,
    window_tokens: int | None,
) -> dict[str, Any]:
    """The body with `models.<name>.options` added (the body's own keys win), the output limit
    under the name the model takes, and that limit clamped to what the window leaves."""
    out = dict(body)
    for key, value in (options or {}).items():
        out.setdefault(key, value)
    limit = max_output_tokens
    for name in TOKEN_PARAMS:
        if name in out:
            value = out.pop(name)
            limit = limit if limit is not None else value if isinstance(value, int) else None
    if limit is None:
        return out
    if window_tokens is not None:
        room = window_tokens - estimate_prompt_tokens(out)
        limit = max(min(limit, room), min(limit, MIN_OUTPUT_TOKENS))
    out[token_param_for(str(out.get("model") or ""))] = limit
    return out


@record(frozen=False)
class LearnedParams:
    """Parameters a model rejected, remembered for the client's life."""

    dropped: set[str] = field(default_factory=set)
    token_param: TokenParam | None = None
    window: int | None = None  # the context window a server stated in a refusal

    def learn(self, param: str) -> bool:
        """Remember a rejected parameter; False when there is nothing new to try."""
        if param in TOKEN_PARAMS:
            other: TokenParam = "max_completion_tokens" if param == "max_tokens" else "max_tokens"
            if self.token_param == other:
                return False
            self.token_param = other
            return True
        if param in ("messages", "model", "tools", "stream") or param in self.dropped:
            return False
        self.dropped.add(param)
        return True

    def apply(self, body: dict[str, Any]) -> dict[str, Any]:
        model = str(body.get("model") or "")
        name = self.token_param or token_param_for(model)
        for token in TOKEN_PARAMS:
            if token != name and token in body:
                body[name] = body.pop(token)
        for param in self.dropped:
            body.pop(param, None)
        if self.window is not None and isinstance(body.get(name), int):
            # Our count is an estimate: keep a margin so the server's own count fits too.
            room = int(self.window * (1 - ESTIMATE_MARGIN)) - estimate_prompt_tokens(body)
            body[name] = max(min(body[name], room), min(body[name], MIN_OUTPUT_TOKENS))
        return body
