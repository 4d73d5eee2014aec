"""The errors of the LSP feature that reach the tool: each one clear line for the model.

A light module of its own, so the tool and the hook can catch them without importing the
typed server code (and `lsprotocol`) before a server is needed.
"""

from __future__ import annotations


class LspError(Exception):
    """One clear line for the model: what failed, with which server."""


class ServerGone(LspError):
    """The connection ended under a request: the server crashed."""
