"""What the app's pickers and dialogs show, computed below the UI (the facade delegates here).

Completion choices, the session list of a resume picker, the configured models, what a
permission request will do (a diff, the full command), the policy's rules and grants, a
connection test against an endpoint, and the project code waiting for the user's trust.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from wave_tui.agent.command_handling import first_prompt
from wave_tui.agent.commands import Command
from wave_tui.agent.sessions import SessionInfo
from wave_tui.config.records import record
from wave_tui.config.settings import EffectiveSettings
from wave_tui.config.trust import TrustRequested
from wave_tui.llm.client import ClientConfig, ModelClient
from wave_tui.llm.errors import ModelError
from wave_tui.permissions.policy import PermissionPolicy
from wave_tui.tools.paths import resolve_tool_path

DIFF_CONTEXT_LINES = 3
PREVIEW_MAX_LINES = 400  # a huge Write is cut in the dialog (the tool still gets it all)
CONNECTION_TIMEOUT_S = 15.0
ModelRole = Literal["main", "fast", "configured"]
PreviewKind = Literal["diff", "new-file", "command", "none"]


@record
class CommandChoice:
    name: str
    description: str
    argument_hint: str
    source: str


def command_choices(commands: Sequence[Command]) -> list[CommandChoice]:
    return [CommandChoice(c.name, c.description, c.argument_hint, c.source) for c in commands]


@record
class SessionSummary:
    """One row of the resume picker."""

    id: str
    first_prompt: str
    age: str  # "3h ago"
    size_bytes: int
    message_count: int
    current: bool


def session_summaries(
    sessions: Sequence[SessionInfo], current_id: str | None, now: float
) -> list[SessionSummary]:
    """Blocking (reads each transcript's head): call from a thread."""
    rows = []
    for info in sessions:
        try:
            size = info.path.stat().st_size
        except OSError:
            size = 0
        rows.append(
            SessionSummary(
                id=info.id,
                first_prompt=first_prompt(info) or "(no prompt)",
                age=age_text(now - info.last_active),
                size_bytes=size,
                message_count=info.message_count,
                current=info.id == current_id,
            )
        )
    return rows


def age_text(seconds: float) -> str:
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def size_text(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


@record
class ModelChoice:
    name: str
    role: ModelRole
    current: bool


def model_choices(current: str | None, settings: EffectiveSettings) -> list[ModelChoice]:
    """`model`, `fastModel` and every `models.*` name, the main one first."""
    out: list[ModelChoice] = []
    seen: set[str] = set()

    def add(name: str | None, role: ModelRole) -> None:
        if name and name not in seen:
            seen.add(name)
            out.append(ModelChoice(name, role, name == current))

    add(settings.model, "main")
    add(current, "main")
    add(settings.fast_model, "fast")
    for name in sorted(settings.models):
        add(name, "configured")
    return out


@record
class PermissionPreview:
    """What an approved call will do, as the dialog shows it."""

    kind: PreviewKind
    text: str  # a unified diff, the new file's content, or the full command
    path: str = ""


# req: UX18
def permission_preview(tool: str, args: dict[str, Any], root: Path) -> PermissionPreview:
    """Blocking (reads the file an Edit/Write changes): call from a thread."""
    if tool == "Bash" and isinstance(args.get("command"), str):
        return PermissionPreview("command", args["command"])
    if tool not in ("Edit", "Write"):
        return PermissionPreview("none", "")
    target = resolve_tool_path(args.get("file_path"), root)
    if target is None:
        return PermissionPreview("none", "")
    shown = _shown_path(target, root)
    try:
        old = target.read_text(encoding="utf-8", errors="replace")
    except OSError:
        old = None
    if tool == "Write":
        new = str(args.get("content") or "")
    elif old is None:
        return PermissionPreview("none", "", shown)
    else:
        new = _edited(old, args)
    if old is None:
        return PermissionPreview("new-file", _cut(new), shown)
    diff = difflib.unified_diff(
        old.splitlines(),
        new.splitlines(),
        fromfile=f"a/{shown}",
        tofile=f"b/{shown}",
        n=DIFF_CONTEXT_LINES,
        lineterm="",
    )
    return PermissionPreview("diff", _cut("\n".join(diff)) or "(no change)", shown)


def _edited(old: str, args: dict[str, Any]) -> str:
    before = str(args.get("old_string") or "")
    after = str(args.get("new_string") or "")
    if not before:
        return old
    count = -1 if args.get("replace_all") else 1
    return old.replace(before, after, count)


def _shown_path(target: Path, root: Path) -> str:
    try:
        return str(target.relative_to(root))
    except ValueError:
        return target.name if target.is_relative_to(Path.home()) else str(target)


def _cut(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= PREVIEW_MAX_LINES:
        return text
    rest = len(lines) - PREVIEW_MAX_LINES
    return "\n".join([*lines[:PREVIEW_MAX_LINES], f"… {rest} more lines"])


@record
class PermissionState:
    mode: str
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    session_grants: tuple[str, ...]


def permission_state(policy: PermissionPolicy) -> PermissionState:
    return PermissionState(
        mode=policy.mode,
        allow=tuple(map(str, policy.allow)),
        deny=tuple(map(str, policy.deny)),
        session_grants=tuple(map(str, policy.session_allow)),
    )


def revoke_grant(policy: PermissionPolicy, grant: str) -> bool:
    """Remove one session grant (as `permission_state` listed it)."""
    for rule in list(policy.session_allow):
        if str(rule) == grant:
            policy.session_allow.remove(rule)
            return True
    return False


@record
class ConnectionCheck:
    ok: bool
    message: str


# req: UX20
async def check_connection(base_url: str, api_key: str, model: str) -> ConnectionCheck:
    """One tiny real chat request to the endpoint, with these values (saved or not)."""
    if not base_url.strip():
        return ConnectionCheck(False, "Enter the endpoint (base URL) first.")
    if not model.strip():
        return ConnectionCheck(False, "Enter a model first.")
    config = ClientConfig(
        base_url=base_url.strip(),
        api_key=api_key.strip() or None,
        read_timeout_s=CONNECTION_TIMEOUT_S,
        connect_timeout_s=CONNECTION_TIMEOUT_S,
    )
    client = ModelClient(config)
    body = {
        "model": model.strip(),
        "messages": [{"role": "user", "content": "Reply with OK."}],
        "max_tokens": 1,
        "stream": True,
    }
    started = time.monotonic()
    try:
        await client.stream_chat(body)
    except ModelError as exc:
        return ConnectionCheck(False, f"Connection failed: {exc}")
    except Exception as exc:  # an unexpected answer is still an answer for the user
        return ConnectionCheck(False, f"Connection failed: {type(exc).__name__}: {exc}")
    finally:
        await client.aclose()
    elapsed = time.monotonic() - started
    return ConnectionCheck(True, f"Connected: {model.strip()} answered in {elapsed:.1f} s.")


@runtime_checkable
class TrustAsker(Protocol):
    """An extension that runs project code only once the user trusted it (hooks, MCP)."""

    def trust_needed(self) -> TrustRequested | None: ...

    async def grant_trust(self, request: TrustRequested) -> None: ...


def trust_requests(extensions: Sequence[object]) -> list[tuple[TrustAsker, TrustRequested]]:
    out: list[tuple[TrustAsker, TrustRequested]] = []
    for extension in extensions:
        if isinstance(extension, TrustAsker):
            request = extension.trust_needed()
            if request is not None:
                out.append((extension, request))
    return out
