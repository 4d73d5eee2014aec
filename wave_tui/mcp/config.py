"""MCP server configuration: `.mcp.json` at the project root and `mcpServers` in settings.

Shapes (contract "MCP (client)"):
    {"mcpServers": {"name": {"command": "…", "args": [], "env": {}}}}          stdio
    {"mcpServers": {"name": {"type": "http", "url": "…", "headers": {}}}}     streamable HTTP
    {"mcpServers": {"name": {"type": "sse", "url": "…", "headers": {}}}}      SSE (older servers)
An HTTP/SSE entry may name its OAuth client instead of registering one dynamically:
    "oauth": {"clientId": "…", "clientSecret": "…"}    a client registered beforehand
    "oauth": {"clientMetadataUrl": "https://…/client.json"}    a URL-based client ID (CIMD)
    "oauth": {"clientId": "…", "clientSecret": "…", "grantType": "client_credentials"}
                                             a client acting for itself, no user to consent
`${VAR}` and `${VAR:-default}` are expanded in every string value. A bad entry costs one line
(in `McpConfig.problems`) and the other entries still load. Later layers override earlier ones
by server name: `.mcp.json` first, then the settings files in their precedence order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.records import record

# The scope given to the `.mcp.json` layer; project-scoped servers must be trusted once in the app.
MCP_JSON_SCOPE = ".mcp.json"
# Settings layers whose file comes with the project folder (same trust as project hooks): a
# repository can commit `.wave/settings.local.json` as easily as `.wave/settings.json`.
TRUSTED_ONLY_AFTER_PROMPT_SCOPES = frozenset({MCP_JSON_SCOPE, "project", "local"})
SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
# `__` separates server and tool in `mcp__server__tool`: a server named `echo__evil` (or `echo_`,
# whose tools read `mcp__echo___x`) would fall under another server's `mcp__echo` rules.
_AMBIGUOUS_NAME = re.compile(r"__|^_|_$")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

Layer = tuple[Path, str, Mapping[str, Any]]  # (file, scope, parsed JSON object)


@record
class StdioServer:
    name: str
    command: str
    args: tuple[str, ...]
    env: Mapping[str, str]  # added to wave's own environment for the child
    source: Path
    scope: str
    cwd: Path | None = None
    kind: Literal["stdio"] = "stdio"

    @property
    def needs_trust(self) -> bool:
        return self.scope in TRUSTED_ONLY_AFTER_PROMPT_SCOPES


@record
class HttpServer:
    name: str
    url: str
    headers: Mapping[str, str]
    source: Path
    scope: str
    kind: Literal["http"] = "http"
    oauth: OAuthClient | None = None

    @property
    def needs_trust(self) -> bool:
        return self.scope in TRUSTED_ONLY_AFTER_PROMPT_SCOPES


# req: MO5
@record
class SseServer:
    """A server on the older HTTP+SSE transport (a GET event stream, POSTs to its endpoint)."""

    name: str
    url: str
    headers: Mapping[str, str]
    source: Path
    scope: str
    kind: Literal["sse"] = "sse"
    oauth: OAuthClient | None = None

    @property
    def needs_trust(self) -> bool:
        return self.scope in TRUSTED_ONLY_AFTER_PROMPT_SCOPES


# req: MA13
@record
class OAuthClient:
    """The OAuth client a remote server's entry names (`"oauth"`): a pre-registered client (its
    secret, if any, stays in the settings, never in the token store), or the HTTPS URL of a
    client ID metadata document used where the authorization server supports one."""

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    # `client_credentials`: the client acts for itself (machine to machine), no user consent.
    grant: Literal["authorization_code", "client_credentials"] = "authorization_code"


RemoteServer = HttpServer | SseServer
ServerConfig = StdioServer | HttpServer | SseServer


@record
class McpConfig:
    servers: tuple[ServerConfig, ...] = ()
    problems: tuple[str, ...] = field(default=())

    def by_name(self, name: str) -> ServerConfig | None:
        return next((s for s in self.servers if s.name == name), None)

    @property
    def project_servers(self) -> frozenset[str]:
        """Names of the servers that come from the project and need the user's trust first."""
        return frozenset(s.name for s in self.servers if s.needs_trust)


class _EntryError(ValueError):
    """One bad server entry; the message is the rest of its one-line problem."""


def expand_vars(text: str, environ: Mapping[str, str]) -> str:  # req: MC1
    """`${VAR}` → its value, `${VAR:-default}` → the value or the default when unset or empty."""

    def repl(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        if value:
            return value
        if default is not None:
            return default
        if value is not None:
            return value
        raise _EntryError(f"${{{name}}} is not set")

    return _VAR.sub(repl, text)


def read_mcp_json(path: Path) -> tuple[Layer | None, str | None]:  # req: MC1
    """The `.mcp.json` layer (None when absent), or a one-line problem when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{path}: cannot be read: {exc}"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"{path}: not valid JSON (line {exc.lineno}): {exc.msg}"
    if not isinstance(data, dict):
        return None, f"{path}: expected a JSON object"
    return (path, MCP_JSON_SCOPE, data), None


def load_servers(  # req: MC1
    layers: Sequence[Layer], environ: Mapping[str, str]
) -> McpConfig:
    """Servers of every layer's `mcpServers`, later layers overriding earlier ones by name."""
    servers: dict[str, ServerConfig] = {}
    problems: list[str] = []
    for path, scope, data in layers:
        section = data.get("mcpServers")
        if section is None:
            continue
        if not isinstance(section, dict):
            problems.append(f"{path}: mcpServers must be an object of servers by name")
            continue
        for name, entry in section.items():
            try:
                server = _parse_entry(str(name), entry, path, scope, environ)
            except _EntryError as exc:
                problems.append(f"{path}: MCP server {name!r} skipped: {exc}")
                continue
            mine = servers.get(server.name)
            if mine is not None and not mine.needs_trust and server.needs_trust:
                # The user's rules name the user's server: project code may not take its name.
                problems.append(
                    f"{path}: MCP server {name!r} skipped: the name is your own server's "
                    f"(from {mine.source})"
                )
                continue
            servers[server.name] = server
    return McpConfig(tuple(servers.values()), tuple(problems))


def _parse_entry(
    name: str, entry: Any, path: Path, scope: str, environ: Mapping[str, str]
) -> ServerConfig:
    if not SERVER_NAME.match(name):
        raise _EntryError("a name may use only letters, digits, '-' and '_'")
    if _AMBIGUOUS_NAME.search(name):
        raise _EntryError("a name may not contain '__' nor start or end with '_'")
    if not isinstance(entry, dict):
        raise _EntryError("expected an object")
    kind = entry.get("type")
    if kind is None:
        kind = "stdio" if "command" in entry else "http" if "url" in entry else None
    if kind in ("http", "streamable-http", "streamableHttp", "sse"):
        url = expand_vars(_string(entry, "url"), environ)
        if not url.lower().startswith(("http://", "https://")):
            raise _EntryError(f"url must start with http:// or https://, got {url!r}")
        headers = {k: expand_vars(v, environ) for k, v in _str_map(entry, "headers").items()}
        oauth = _oauth_client(entry, environ)
        if kind == "sse":
            return SseServer(name, url, headers, path, scope, oauth=oauth)
        return HttpServer(name, url, headers, path, scope, oauth=oauth)
    if kind == "stdio":
        command = expand_vars(_string(entry, "command"), environ)
        args = tuple(expand_vars(a, environ) for a in _str_list(entry, "args"))
        env = {k: expand_vars(v, environ) for k, v in _str_map(entry, "env").items()}
        cwd_raw = entry.get("cwd")
        if cwd_raw is not None and not isinstance(cwd_raw, str):
            raise _EntryError("cwd must be a string")
        cwd = Path(expand_vars(cwd_raw, environ)).expanduser() if cwd_raw else None
        return StdioServer(name, command, args, env, path, scope, cwd)
    raise _EntryError('needs "command" (stdio) or "type": "http" with "url"')


def _oauth_client(  # req: MA13
    entry: Mapping[str, Any], environ: Mapping[str, str]
) -> OAuthClient | None:
    raw = entry.get("oauth")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise _EntryError("oauth must be an object")
    values: dict[str, str | None] = {}
    for key in ("clientId", "clientSecret", "clientMetadataUrl", "grantType"):
        value = raw.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise _EntryError(f"oauth.{key} must be a non-empty string")
        values[key] = expand_vars(value, environ) if value is not None else None
    if values["clientSecret"] and not values["clientId"]:
        raise _EntryError("oauth.clientSecret needs oauth.clientId")
    cimd = values["clientMetadataUrl"]
    if cimd is not None and not _is_cimd_url(cimd):
        raise _EntryError(
            f"oauth.clientMetadataUrl must be an https:// URL with a path, got {cimd!r}"
        )
    raw_grant = values["grantType"] or "authorization_code"
    if raw_grant == "authorization_code":
        grant: Literal["authorization_code", "client_credentials"] = "authorization_code"
    elif raw_grant == "client_credentials":
        grant = "client_credentials"
    else:
        raise _EntryError(
            f"oauth.grantType must be authorization_code or client_credentials, got {raw_grant!r}"
        )
    if grant == "client_credentials" and not values["clientSecret"]:
        raise _EntryError("oauth.grantType client_credentials needs oauth.clientSecret")
    return OAuthClient(values["clientId"], values["clientSecret"], cimd, grant)


def _is_cimd_url(url: str) -> bool:
    # The authorization server fetches the document by this URL: only https, never the root.
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.scheme == "https" and bool(parts.netloc) and parts.path not in ("", "/")


def _string(entry: Mapping[str, Any], key: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _EntryError(f"{key} must be a non-empty string")
    return value


def _str_list(entry: Mapping[str, Any], key: str) -> list[str]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _EntryError(f"{key} must be a list of strings")
    return value


def _str_map(entry: Mapping[str, Any], key: str) -> dict[str, str]:
    value = entry.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise _EntryError(f"{key} must be an object of strings")
    return {str(k): v for k, v in value.items()}
