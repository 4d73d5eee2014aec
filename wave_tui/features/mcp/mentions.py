"""`@server:uri` in a message: the resource is read and attached to the turn (MO3); Tab on a
trailing `@partial` offers the servers' resources beside the files.

The attachment is an isMeta message after the prompt (the turn observer's `context`), capped like
a tool result; a resource that cannot be read is one line in its place, and the turn goes on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wave_tui.config.records import record

MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_-]+):(\S+)")
COMPLETION_LIMIT = 50


@record
class Mention:
    server: str
    uri: str


def mentions(text: str, servers: Sequence[str]) -> list[Mention]:  # req: MO3
    """The `@server:uri` of `text` whose server is configured, each once, in order."""
    found: list[Mention] = []
    for match in MENTION.finditer(text):
        server, uri = match.group(1), match.group(2).rstrip(".,;!?)")
        mention = Mention(server, uri)
        if server in servers and uri and mention not in found:
            found.append(mention)
    return found


def resource_block(mention: Mention, text: str, *, failed: bool) -> str:
    if failed:
        return f"[MCP resource {mention.server}:{mention.uri} could not be read: {text}]"
    return f'<mcp-resource server="{mention.server}" uri="{mention.uri}">\n{text}\n</mcp-resource>'


def complete_mention(  # req: MO3
    text: str, files: tuple[str, tuple[str, ...]], names: Sequence[str]
) -> tuple[str, tuple[str, ...]]:
    """The file completion of `text` widened with the `server:uri` names that match its
    trailing `@partial` (a partial with `server:` offers resources only)."""
    match = re.search(r"(?:^|\s)@(\S*)$", text)
    if match is None:
        return files
    partial = match.group(1).lower()
    hits = [n for n in names if n.lower().startswith(partial)]
    if not hits:
        hits = [n for n in names if partial in n.lower()]
    hits = hits[:COMPLETION_LIMIT]
    if not hits:
        return files
    completed, file_options = files
    prefix = text[: match.end() - len(match.group(1))]
    if completed != text and not file_options:  # one file matched: offer it beside them
        file_options = (completed[len(prefix) :],)
    if ":" in partial or not file_options:
        file_options = ()
    options = (*file_options, *hits)
    if len(options) == 1:
        return prefix + options[0], ()
    return text, options
