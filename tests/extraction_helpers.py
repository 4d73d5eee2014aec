"""Recognising the extraction fork's requests at the scripted model server."""

from __future__ import annotations

from typing import Any

FORK_MARKER = "You are now the memory extraction subagent"


def is_fork(body: dict[str, Any]) -> bool:
    return any(FORK_MARKER in str(m.get("content")) for m in body.get("messages", []))


def is_main(body: dict[str, Any]) -> bool:
    return not is_fork(body)
