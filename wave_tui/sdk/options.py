"""The SDK's options (004's AgentOptions in snake_case), checked once at `Agent.create`.

Every option is checked for its type and value before anything starts, and a wrong one raises
`TypeError` or `ValueError` naming it: a program learns of its mistake at the line that made it,
not from a turn that fails later. The checked options become the agent's `AgentOptions`, an
environment (model, key, endpoint, limits, headers — the same variables the app reads, so one
set of rules decides) and a settings layer for `hooks` and `mcp_servers`.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, get_args

from pydantic import ValidationError

from wave_tui.config.records import record
from wave_tui.llm.types import Message
from wave_tui.permissions.policy import PermissionMode

OPTION_NAMES = (
    "model",
    "fast_model",
    "api_key",
    "base_url",
    "default_headers",
    "subagent_headers",
    "workdir",
    "restore_session_id",
    "continue_last_session",
    "system_prompt",
    "permission_mode",
    "can_use_tool",
    "on_elicitation",
    "allowed_tools",
    "disallowed_tools",
    "custom_tools",
    "hooks",
    "mcp_servers",
    "plugins",
    "lsp_servers",
    "watch_skills",
    "language",
    "max_input_tokens",
    "max_tokens",
    "callbacks",
    "tools",
    "messages",
    "stream",
    "logger",
    "name",
    "is_new_worktree",
)
PERMISSION_MODES: tuple[str, ...] = get_args(PermissionMode)


@record
class SdkOptions:
    """The options after checking (defaults filled in)."""

    workdir: Path
    environ: dict[str, str]
    model: str | None = None
    restore_session_id: str | None = None
    continue_last_session: bool = False
    system_prompt: str | None = None
    permission_mode: PermissionMode | None = None
    can_use_tool: Callable[..., Any] | None = None
    on_elicitation: Callable[..., Any] | None = None  # an MCP server's form (sdk/elicitation.py)
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    custom_tools: tuple[Any, ...] = ()
    hooks: Mapping[str, Any] | None = None
    mcp_servers: Mapping[str, Any] | None = None
    plugins: tuple[Mapping[str, Any], ...] = ()
    language: str | None = None
    max_input_tokens: int | None = None
    callbacks: Any = None
    tools: tuple[str, ...] | None = None  # None: every tool; (): none
    messages: tuple[Message, ...] = ()
    stream: bool = True
    logger: logging.Logger | None = None
    worktree: str | None = None
    is_new_worktree: bool | None = None  # None: made when missing, else gone back into
    subagent_headers: Mapping[str, Mapping[str, str]] | None = None
    lsp_servers: Mapping[str, Any] | None = None  # replaces the settings' `lspServers`
    watch_skills: bool = True


def _string(name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"option {name!r} must be a str, not {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"option {name!r} must not be empty")
    return value


def _positive(name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"option {name!r} must be an int, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"option {name!r} must be at least 1 (got {value})")
    return value


def _strings(name: str, value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise TypeError(f"option {name!r} must be a list of str, not {type(value).__name__}")
    for item in value:
        if not isinstance(item, str):
            raise TypeError(f"option {name!r} must hold only str, not {type(item).__name__}")
    return tuple(value)


def _mapping(name: str, value: object) -> Mapping[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"option {name!r} must be a dict, not {type(value).__name__}")
    for key in value:
        if not isinstance(key, str):
            raise TypeError(f"option {name!r} must have str keys, not {type(key).__name__}")
    return value


def _headers(value: object, name: str = "default_headers") -> dict[str, str] | None:
    mapping = _mapping(name, value)
    if mapping is None:
        return None
    for key, item in mapping.items():
        if not isinstance(item, str):
            raise TypeError(f"option {name!r} value for {key!r} must be a str")
    return dict(mapping)


# req: SX2
def _subagent_headers(value: object) -> dict[str, dict[str, str]] | None:
    """`subagent_headers`: {subagent type: {header: value}}, sent on that subagent's requests."""
    mapping = _mapping("subagent_headers", value)
    if mapping is None:
        return None
    checked: dict[str, dict[str, str]] = {}
    for kind, headers in mapping.items():
        if not isinstance(headers, Mapping):
            raise TypeError(f"option 'subagent_headers' value for {kind!r} must be a dict")
        checked[kind] = _headers(headers, "subagent_headers") or {}
        for header, item in checked[kind].items():
            if (
                not header
                or any(c in header for c in "\r\n\0: ")
                or any(c in item for c in "\r\n\0")
            ):
                raise ValueError(f"option 'subagent_headers': header {header!r} is not valid")
    return checked


def _is_new_worktree(value: object, name: str | None) -> bool | None:
    if value is None:
        return None
    if name is None:
        raise ValueError("option 'is_new_worktree' needs the option 'name' (the worktree)")
    return _bool("is_new_worktree", value)


def _workdir(value: object) -> Path:
    if value is None:
        return Path.cwd().resolve()
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"option 'workdir' must be a str or a path, not {type(value).__name__}")
    path = Path(value).expanduser()
    if not path.is_dir():
        raise ValueError(f"option 'workdir' is not a folder: {path}")
    return path.resolve()


def _plugins(value: object) -> tuple[Mapping[str, Any], ...]:
    if value is None:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise TypeError(f"option 'plugins' must be a list of dicts, not {type(value).__name__}")
    for item in value:
        if not isinstance(item, Mapping) or not isinstance(item.get("path"), str):
            raise TypeError("option 'plugins' must hold dicts with a str 'path'")
    return tuple(value)


def _callable(name: str, value: object) -> Callable[..., Any] | None:
    if value is not None and not callable(value):
        raise TypeError(f"option {name!r} must be callable, not {type(value).__name__}")
    return value


def _bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"option {name!r} must be a bool, not {type(value).__name__}")
    return value


def _logger(value: object) -> logging.Logger | None:
    if value is not None and not isinstance(value, logging.Logger):
        raise TypeError(f"option 'logger' must be a logging.Logger, not {type(value).__name__}")
    return value


# req: SX2
def _messages(value: object, restoring: bool) -> tuple[Message, ...]:
    """`messages`: the conversation a new session starts with (`Message`s or their dicts)."""
    if value is None:
        return ()
    if isinstance(value, (str, Mapping)) or not isinstance(value, Sequence):
        raise TypeError(f"option 'messages' must be a list of Message, not {type(value).__name__}")
    if value and restoring:
        raise ValueError("option 'messages' starts a new session: not with a restored one")
    checked: list[Message] = []
    for item in value:
        try:
            message = item if isinstance(item, Message) else Message.model_validate(item)
        except ValidationError as exc:
            raise ValueError(f"option 'messages': not a message: {item!r} ({exc})") from None
        checked.append(message.model_copy(deep=True))
    return tuple(checked)


# req: SD2
def check_options(raw: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> SdkOptions:
    """The options checked, or a TypeError / ValueError naming the first wrong one."""
    unknown = sorted(set(raw) - set(OPTION_NAMES))
    if unknown:
        raise TypeError(
            f"unknown option {unknown[0]!r} (the options are: {', '.join(OPTION_NAMES)})"
        )
    env = dict(os.environ if environ is None else environ)
    model = _string("model", raw.get("model"))
    for name, variable in (
        ("model", "WAVE_MODEL"),
        ("fast_model", "WAVE_FAST_MODEL"),
        ("api_key", "WAVE_API_KEY"),
        ("base_url", "WAVE_BASE_URL"),
    ):
        value = _string(name, raw.get(name))
        if value is not None:
            env[variable] = value
    max_tokens = _positive("max_tokens", raw.get("max_tokens"))
    if max_tokens is not None:
        env["WAVE_MAX_OUTPUT_TOKENS"] = str(max_tokens)
    max_input = _positive("max_input_tokens", raw.get("max_input_tokens"))
    headers = _headers(raw.get("default_headers"))
    if headers is not None:
        env["WAVE_CUSTOM_HEADERS"] = json.dumps(headers)
    mode = raw.get("permission_mode")
    if mode is not None and not isinstance(mode, str):
        raise TypeError(f"option 'permission_mode' must be a str, not {type(mode).__name__}")
    if mode is not None and mode not in PERMISSION_MODES:
        raise ValueError(
            f"option 'permission_mode' must be one of {', '.join(PERMISSION_MODES)} (got {mode!r})"
        )
    restore = _string("restore_session_id", raw.get("restore_session_id"))
    continue_last = raw.get("continue_last_session", False)
    if not isinstance(continue_last, bool):
        raise TypeError("option 'continue_last_session' must be a bool")
    if restore is not None and continue_last:
        raise ValueError(
            "options 'restore_session_id' and 'continue_last_session' exclude each other"
        )
    from wave_tui.sdk.custom_tools import check_custom_tools

    worktree = _string("name", raw.get("name"))
    return SdkOptions(
        workdir=_workdir(raw.get("workdir")),
        environ=env,
        model=model,
        restore_session_id=restore,
        continue_last_session=continue_last,
        system_prompt=_string("system_prompt", raw.get("system_prompt")),
        permission_mode=mode,  # type: ignore[arg-type]  # checked against the Literal above
        can_use_tool=_callable("can_use_tool", raw.get("can_use_tool")),
        on_elicitation=_callable("on_elicitation", raw.get("on_elicitation")),
        allowed_tools=_strings("allowed_tools", raw.get("allowed_tools")),
        disallowed_tools=_strings("disallowed_tools", raw.get("disallowed_tools")),
        custom_tools=check_custom_tools(raw.get("custom_tools")),
        hooks=_mapping("hooks", raw.get("hooks")),
        mcp_servers=_mapping("mcp_servers", raw.get("mcp_servers")),
        plugins=_plugins(raw.get("plugins")),
        language=_string("language", raw.get("language")),
        max_input_tokens=max_input,
        callbacks=raw.get("callbacks"),
        tools=_strings("tools", raw["tools"]) if raw.get("tools") is not None else None,
        messages=_messages(raw.get("messages"), restore is not None or continue_last),
        stream=_bool("stream", raw.get("stream", True)),
        logger=_logger(raw.get("logger")),
        worktree=worktree,
        is_new_worktree=_is_new_worktree(raw.get("is_new_worktree"), worktree),
        subagent_headers=_subagent_headers(raw.get("subagent_headers")),
        lsp_servers=_mapping("lsp_servers", raw.get("lsp_servers")),
        watch_skills=_bool("watch_skills", raw.get("watch_skills", True)),
    )
