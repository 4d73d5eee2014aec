"""Language-server configuration: settings `lspServers` and plugins' `.lsp.json`, parsed.

Both have Claude Code's flat shape `{NAME: {command, args?, extensionToLanguage, env?,
initializationOptions?, settings?, startupTimeout?, requestTimeout?}}` (timeouts in
milliseconds). A bad entry costs one problem line; the others still load. Later layers win by
name. No language-server code is imported here: this module only reads dicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from wave_tui.config.records import record

SETTINGS_KEY = "lspServers"
DIAGNOSTICS_TIMEOUT_KEY = "lspDiagnosticsTimeout"
DEFAULT_STARTUP_TIMEOUT_MS = 30_000
DEFAULT_REQUEST_TIMEOUT_MS = 20_000
DEFAULT_DIAGNOSTICS_TIMEOUT_S = 3.0
# The one scope whose servers start without asking. Every other is the project's: a
# `.wave/settings.local.json` can be committed like `.wave/settings.json`, and a plugin turned
# on by either is the project's code too; their servers wait for the user's trust (as project
# hooks and MCP servers do).
UNASKED_SCOPE = "user"


@record
class LspServerConfig:
    name: str
    command: str
    args: tuple[str, ...]
    extension_to_language: Mapping[str, str]  # ".py" -> "python" (the didOpen languageId)
    env: Mapping[str, str] = field(default_factory=dict)
    initialization_options: Any = None
    settings: Mapping[str, Any] = field(default_factory=dict)  # workspace/configuration answers
    startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_MS / 1000
    request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_MS / 1000
    source: str = "settings"  # where it came from, for /lsp
    scope: str = "user"  # the settings layer's scope ("project", "local", "user", a plugin's)

    @property
    def needs_trust(self) -> bool:  # req: HR3
        """A server from any scope but the user's runs only once the user trusts it."""
        return self.scope != UNASKED_SCOPE

    def language_of(self, path: Path) -> str | None:
        return self.extension_to_language.get(path.suffix) or self.extension_to_language.get(
            path.suffix.lower()
        )


@record
class LspConfig:
    servers: tuple[LspServerConfig, ...] = ()
    problems: tuple[str, ...] = ()


def _timeout(raw: object, default_ms: int, what: str, problems: list[str]) -> float:
    if raw is None:
        return default_ms / 1000
    if isinstance(raw, bool) or not isinstance(raw, int | float) or raw <= 0:
        problems.append(f"{what} must be a positive number of milliseconds")
        return default_ms / 1000
    return float(raw) / 1000


def _strings(raw: object) -> Mapping[str, str] | None:
    if not isinstance(raw, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in raw.items()
    ):
        return None
    return dict(raw)


def parse_server(name: str, raw: object, source: str, scope: str = "user") -> LspServerConfig | str:
    """One entry, or the one line that says what is wrong with it."""
    where = f"{source}: lspServers.{name}"
    if not isinstance(raw, Mapping):
        return f"{where} must be an object"
    command = raw.get("command")
    if not isinstance(command, str) or not command.strip():
        return f"{where}: `command` must be a non-empty string"
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return f"{where}: `args` must be a list of strings"
    extensions = _strings(raw.get("extensionToLanguage"))
    if not extensions:
        return (
            f'{where}: `extensionToLanguage` must map extensions to languages ({{".py": "python"}})'
        )
    env = _strings(raw.get("env", {}))
    if env is None:
        return f"{where}: `env` must map names to strings"
    settings = raw.get("settings", {})
    if not isinstance(settings, Mapping):
        return f"{where}: `settings` must be an object"
    problems: list[str] = []
    startup = _timeout(
        raw.get("startupTimeout"), DEFAULT_STARTUP_TIMEOUT_MS, "startupTimeout", problems
    )
    request = _timeout(
        raw.get("requestTimeout"), DEFAULT_REQUEST_TIMEOUT_MS, "requestTimeout", problems
    )
    if problems:
        return f"{where}: {problems[0]}"
    dotted = {(k if k.startswith(".") else f".{k}"): v for k, v in extensions.items()}
    return LspServerConfig(
        name,
        command,
        tuple(args),
        dotted,
        env,
        raw.get("initializationOptions"),
        dict(settings),
        startup,
        request,
        source,
        scope,
    )


def parse_servers(raw: object, source: str, scope: str = "user") -> LspConfig:
    """A `{NAME: {...}}` mapping (settings `lspServers` or a plugin's `.lsp.json`)."""
    if not isinstance(raw, Mapping):
        return LspConfig((), (f"{source}: lspServers must be an object",))
    servers: list[LspServerConfig] = []
    problems: list[str] = []
    for name, entry in raw.items():
        parsed = parse_server(str(name), entry, source, scope)
        if isinstance(parsed, str):
            problems.append(parsed)
        else:
            servers.append(parsed)
    return LspConfig(tuple(servers), tuple(problems))


def merge(configs: Iterable[LspConfig]) -> LspConfig:
    """Later configs win by server name; problems are kept in order."""
    by_name: dict[str, LspServerConfig] = {}
    problems: list[str] = []
    for config in configs:
        for server in config.servers:
            by_name[server.name] = server
        problems.extend(config.problems)
    return LspConfig(tuple(by_name.values()), tuple(problems))


def diagnostics_timeout(layers: Iterable[Mapping[str, Any]]) -> float:
    """Seconds to wait for diagnostics after an edit: the last settings file that sets it."""
    value = DEFAULT_DIAGNOSTICS_TIMEOUT_S
    for data in layers:
        raw = data.get(DIAGNOSTICS_TIMEOUT_KEY)
        if isinstance(raw, int | float) and not isinstance(raw, bool) and raw >= 0:
            value = float(raw)
    return value
