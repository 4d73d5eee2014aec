"""What the app's pickers and dialogs show, computed below the UI (the session's parts call it).

Completion choices, the session list of a resume picker, the models of the `/model` picker
(configured ones first, then those the endpoint lists), what a permission request will do (a diff, the full command), the policy's rules and grants, a
connection test against an endpoint, and the project code waiting for the user's trust.
"""

from __future__ import annotations

import difflib
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from wave_tui.agent.command_handling import first_prompt
from wave_tui.agent.commands import Command
from wave_tui.agent.sessions import SessionInfo
from wave_tui.config.paths import display_path
from wave_tui.config.records import record
from wave_tui.config.settings import EffectiveSettings
from wave_tui.config.trust import TrustRequested
from wave_tui.files.real_paths import resolve_tool_path
from wave_tui.llm.client import ClientConfig, ModelClient
from wave_tui.llm.errors import ModelError
from wave_tui.llm.model_list import MODEL_LIST_TIMEOUT_S
from wave_tui.permissions.policy import PermissionPolicy
from wave_tui.permissions.tool_table import BASH, EDIT, WRITE
from wave_tui.tools.base import ToolError
from wave_tui.tools.edit import planned_edit

DIFF_CONTEXT_LINES = 3
PREVIEW_MAX_LINES = 400  # a huge Write is cut in the dialog (the tool still gets it all)
CONNECTION_TIMEOUT_S = 15.0
ModelRole = Literal["main", "fast", "configured", "endpoint"]
PreviewKind = Literal["diff", "new-file", "command", "arguments", "refusal", "none"]


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
    name: str | None = None  # /rename's
    project: Path | None = None  # set for a session of another project: the folder it ran in
    last_active: float = 0.0  # epoch seconds: orders every project's sessions together


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
                last_active=info.last_active,
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
class ModelMenu:
    """What the `/model` picker offers; `note` is one line when the endpoint's own list could
    not be read (the configured models are offered all the same)."""

    choices: tuple[ModelChoice, ...]
    note: str = ""


@record
class OfferedModels:
    """The endpoint's model list, or why there is none."""

    ids: tuple[str, ...]
    problem: str = ""


def model_menu(
    configured: Sequence[ModelChoice], offered: OfferedModels, current: str | None
) -> ModelMenu:
    """The configured models first, then the endpoint's others in its own order."""
    seen = {c.name for c in configured}
    extra = [ModelChoice(name, "endpoint", name == current) for name in offered.ids]
    choices = (*configured, *(c for c in extra if c.name not in seen))
    note = (
        f"The endpoint's model list could not be read: {offered.problem}" if offered.problem else ""
    )
    return ModelMenu(choices, note)


async def endpoint_models(settings: EffectiveSettings) -> OfferedModels:
    """`GET {base_url}/models` with the key and headers in force; never raises."""
    if not settings.base_url:
        return OfferedModels(())
    config = ClientConfig(
        base_url=settings.base_url,
        api_key=settings.api_key,
        headers=dict(settings.custom_headers),
        connect_timeout_s=MODEL_LIST_TIMEOUT_S,
        read_timeout_s=MODEL_LIST_TIMEOUT_S,
    )
    client = ModelClient(config)
    try:
        return OfferedModels(await client.list_models())
    except ModelError as exc:
        return OfferedModels((), str(exc))
    finally:
        await client.aclose()


@record
class PermissionPreview:
    """What an approved call will do, as the dialog shows it."""

    kind: PreviewKind
    # A unified diff, the new file's content, the full command, the arguments as JSON, or the
    # tool's refusal (an Edit it would refuse: nothing to approve but the user should know).
    text: str
    path: str = ""
    description: str = ""  # Bash: what the command does, in the model's words
    background: bool = False  # Bash: run_in_background, the call returns at once


# req: UX18
def permission_preview(tool: str, args: dict[str, Any], root: Path) -> PermissionPreview:
    """Blocking (reads the file an Edit/Write changes): call from a thread."""
    if tool == BASH and isinstance(args.get("command"), str):
        return _command_preview(args)
    if tool == EDIT:
        return _edit_preview(args, root)
    if tool != WRITE:
        return _arguments_preview(args)
    target = resolve_tool_path(args.get("file_path"), root)
    if target is None:
        return PermissionPreview("none", "")
    shown = display_path(target, root)
    try:
        old = target.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return PermissionPreview("new-file", _cut(str(args.get("content") or "")), shown)
    return _diff(old, str(args.get("content") or ""), shown)


# req: CV10
def _command_preview(args: dict[str, Any]) -> PermissionPreview:
    description = args.get("description")
    return PermissionPreview(
        "command",
        args["command"],
        description=description.strip() if isinstance(description, str) else "",
        background=args.get("run_in_background") in (True, "true"),
    )


# req: CV10
def _arguments_preview(args: dict[str, Any]) -> PermissionPreview:
    """Any other tool (an MCP tool above all): every argument it will get, as JSON."""
    if not args:
        return PermissionPreview("none", "")
    text = json.dumps(args, indent=2, ensure_ascii=False, default=str)
    return PermissionPreview("arguments", _cut(text))


def _edit_preview(args: dict[str, Any], root: Path) -> PermissionPreview:
    """The Edit tool's own result as a diff, or its refusal (never a diff it would not make)."""
    target = resolve_tool_path(args.get("file_path"), root)
    shown = display_path(target, root) if target is not None else ""
    try:
        before, edited = planned_edit(args, root)
    except ToolError as refusal:
        return PermissionPreview("refusal", str(refusal), shown)
    return _diff(before, edited.text, shown)


def _diff(old: str, new: str, shown: str) -> PermissionPreview:
    diff = difflib.unified_diff(
        old.splitlines(),
        new.splitlines(),
        fromfile=f"a/{shown}",
        tofile=f"b/{shown}",
        n=DIFF_CONTEXT_LINES,
        lineterm="",
    )
    return PermissionPreview("diff", _cut("\n".join(diff)) or "(no change)", shown)


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
