"""The errors of the LSP feature that reach the tool: each one clear line for the model.

A light module of its own, so the tool and the hook can catch them without importing the
typed server code (and `lsprotocol`) before a server is needed.
"""

from __future__ import annotations


class LspError(Exception):
    """One clear line for the model: what failed, with which server."""


class ServerGone(LspError):
    """The connection ended under a request: the server crashed."""


# What a server's own start-up complaint means and how to mend it: (words of the complaint,
# the fix appended to the error).
START_HINTS: tuple[tuple[str, str], ...] = (
    (
        "Could not find a valid TypeScript installation",
        "TypeScript 7 ships no tsserver: install TypeScript 5 beside the server "
        "(npm install -g typescript@5 typescript-language-server)",
    ),
)


# req: FH10
def with_start_hint(reason: str) -> str:
    """`reason`, with the fix for a start-up failure whose cause is known."""
    for words, fix in START_HINTS:
        if words in reason:
            return f"{reason} — {fix}"
    return reason
