"""Typed errors of the model client. Each message is one clear line for the user."""

from __future__ import annotations

import math
from typing import Literal

from wave_tui.config.records import record


class ModelError(Exception):
    """Base class: anything that stops a model request from producing a reply."""


class ModelNotConfigured(ModelError):
    pass


class ModelHTTPError(ModelError):
    def __init__(self, status: int, message: str, *, attempts: int = 1) -> None:
        self.status = status
        self.attempts = attempts
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        super().__init__(f"model endpoint returned HTTP {status}{tries}: {message}")


class ModelConnectionError(ModelError):
    """Nothing answered: the message names the URL tried, the first thing a user checks."""

    def __init__(self, message: str, *, attempts: int = 1, url: str = "") -> None:
        self.attempts = attempts
        self.url = url
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        where = f" {url}" if url else ""
        super().__init__(f"cannot reach the model endpoint{where}{tries}: {message}")


# "learned": the request is sent again at once, changed as the refusal said (one line).
RetryCause = Literal["rate_limit", "server", "connection", "learned"]


@record
class RetryScheduled:
    """An attempt failed and the request is tried again in `wait_s` seconds: said, never
    silent (a 429 that waits a minute looks like a hang otherwise)."""

    cause: RetryCause
    reason: str  # "rate limited", "HTTP 503", "cannot reach http://…"
    wait_s: float
    attempt: int  # the attempt that failed, 1-based

    def line(self) -> str:
        if self.cause == "learned":
            return self.reason
        return f"{self.reason} — retrying in {math.ceil(self.wait_s)}s"


# req: AC4
class StreamInterrupted(ModelError):
    """The stream broke after it started: what arrived is in `partial_text` (never persisted)."""

    def __init__(self, message: str, partial_text: str = "") -> None:
        self.partial_text = partial_text
        super().__init__(f"the model's reply stream broke off: {message}")


class ModelProtocolError(ModelError):
    """The endpoint answered with something that is not a valid chat-completions stream."""


class ModelConfigError(ModelError):
    """The client's own configuration is unusable (bad base URL, CRLF in a header): never retried."""

    def __init__(self, message: str) -> None:
        super().__init__(f"model endpoint misconfigured: {message}")


class ContextLengthExceeded(ModelHTTPError):  # req: PV11
    """The prompt does not fit the model's context window: compact and retry once.

    `window` and `prompt_tokens` are what the refusal stated (None when it said no number)."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        attempts: int = 1,
        window: int | None = None,
        prompt_tokens: int | None = None,
    ) -> None:
        self.window = window
        self.prompt_tokens = prompt_tokens
        super().__init__(status, message, attempts=attempts)


class ServerMisconfigured(ModelHTTPError):  # req: PV12
    """The server can never serve this request as started (e.g. tools disabled): `fix` says how."""

    def __init__(self, status: int, message: str, fix: str, *, attempts: int = 1) -> None:
        self.fix = fix
        super().__init__(status, f"{fix} (server said: {message})", attempts=attempts)
