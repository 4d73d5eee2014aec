"""A server's resources and prompts: listed when it is ready, listed again when it says so.

Only what the server's `initialize` answer offers is asked (`capabilities.resources`,
`capabilities.prompts`); a list that fails costs one `last_error`, never the connection.
Reading a resource and getting a prompt go through `mcp.connection.ServerConnection.session()`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import anyio
from mcp import ClientSession, McpError, types

from wave_tui.config.records import record


@record
class RemoteResource:
    uri: str
    name: str
    description: str
    mime_type: str | None


@record
class ResourceTemplate:
    """A family of resources (`resources/templates/list`): `uri_template` is RFC 6570."""

    uri_template: str
    name: str
    description: str
    mime_type: str | None


@record
class PromptArgument:
    name: str
    description: str
    required: bool


@record
class RemotePrompt:
    name: str
    description: str
    arguments: tuple[PromptArgument, ...]


# A list is read this far at most: a server that pages forever (or lists millions) would
# otherwise keep its session from starting and fill wave's memory.
LIST_MAX_PAGES = 20
LIST_MAX_ITEMS = 5_000


async def _all_pages(list_page: Any, field: str) -> list[Any]:
    found: list[Any] = []
    cursor: str | None = None
    for _ in range(LIST_MAX_PAGES):
        page = await list_page(params=types.PaginatedRequestParams(cursor=cursor))
        found.extend(getattr(page, field)[: LIST_MAX_ITEMS - len(found)])
        cursor = page.nextCursor
        if not cursor or len(found) >= LIST_MAX_ITEMS:
            break
    return found


# req: MA6
async def _templates(session: ClientSession) -> tuple[ResourceTemplate, ...]:
    """The server's resource templates (none when it does not list them: an old server)."""
    try:
        listed = await _all_pages(session.list_resource_templates, "resourceTemplates")
    except McpError:
        return ()
    return tuple(
        ResourceTemplate(t.uriTemplate, t.name, t.description or "", t.mimeType) for t in listed
    )


class RemoteLists:
    def __init__(self) -> None:
        self.resources: tuple[RemoteResource, ...] = ()
        self.templates: tuple[ResourceTemplate, ...] = ()
        self.prompts: tuple[RemotePrompt, ...] = ()
        self.has_resources = False
        self.has_prompts = False
        self.error: str | None = None
        self.stale = asyncio.Event()

    # req: MO3
    async def load(self, session: ClientSession, capabilities: types.ServerCapabilities) -> None:
        self.has_resources = capabilities.resources is not None
        self.has_prompts = capabilities.prompts is not None
        try:
            if self.has_resources:
                listed = await _all_pages(session.list_resources, "resources")
                self.resources = tuple(
                    RemoteResource(str(r.uri), r.name, r.description or "", r.mimeType)
                    for r in listed
                )
                self.templates = await _templates(session)
            if self.has_prompts:
                found = await _all_pages(session.list_prompts, "prompts")
                self.prompts = tuple(
                    RemotePrompt(
                        p.name,
                        p.description or "",
                        tuple(
                            PromptArgument(a.name, a.description or "", bool(a.required))
                            for a in p.arguments or ()
                        ),
                    )
                    for p in found
                )
        except McpError as exc:
            self.error = f"listing resources/prompts failed: {exc.error.message}"

    async def follow(
        self, session: ClientSession, limit_s: float, on_change: Callable[[], None]
    ) -> None:
        """List again after each `list_changed` notification (runs with the session)."""
        while True:
            await self.stale.wait()
            self.stale.clear()
            capabilities = types.ServerCapabilities(
                resources=types.ResourcesCapability() if self.has_resources else None,
                prompts=types.PromptsCapability() if self.has_prompts else None,
            )
            with anyio.move_on_after(limit_s):
                await self.load(session, capabilities)
            on_change()
