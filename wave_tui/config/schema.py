"""The one settings schema: every settings-file key and WAVE_* variable, with its description.

`SettingsSchema` is the schema (its sources are in `sources.py`, merged and validated in
`settings.py`); `settings_fields()` exports it for the settings form and the docs site's settings reference (`settings_doc.py`).
A field with an `env` entry in its `json_schema_extra` is read from that WAVE_* variable (see
`_env` and `_env_and_file`); every field not marked `envOnly` is a settings-file key (camelCase in JSON).
"""

from __future__ import annotations

import json
import types
import typing
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel
from pydantic.types import StrictBool, StrictInt, StrictStr

# Re-exported: the schema is where settings code has always found the modes.
from wave_tui.config.modes import PERMISSION_MODES as PERMISSION_MODES
from wave_tui.config.modes import PermissionMode as PermissionMode
from wave_tui.config.records import record

DEFAULT_MAX_INPUT_TOKENS = 128_000
DEFAULT_MAX_OUTPUT_TOKENS = 8192
DEFAULT_CLEANUP_PERIOD_DAYS = 30
DEFAULT_AUTO_MEMORY_ENABLED = True
DEFAULT_AUTO_MEMORY_FREQUENCY = 1
AUTO_MEMORY_FREQUENCY_MIN = 1
MemoryWrites = Literal["auto", "review", "off"]
MEMORY_WRITES: tuple[MemoryWrites, ...] = ("auto", "review", "off")
AUTO_MEMORY_FREQUENCY_MAX = 100


FREQUENCY_RULE = (
    f"must be an integer from {AUTO_MEMORY_FREQUENCY_MIN} to {AUTO_MEMORY_FREQUENCY_MAX}"
)
FrequencyInt = Annotated[
    StrictInt, Field(ge=AUTO_MEMORY_FREQUENCY_MIN, le=AUTO_MEMORY_FREQUENCY_MAX)
]
PositiveInt = Annotated[int, Field(gt=0)]

_TRUE_WORDS = frozenset({"1", "true", "yes"})
_FALSE_WORDS = frozenset({"0", "false", "no"})

_CAMEL = ConfigDict(
    alias_generator=to_camel,
    validate_by_name=True,
    validate_by_alias=True,
    serialize_by_alias=True,
    extra="allow",
    frozen=True,
)


def _env(name: str) -> dict[str, Any]:
    """Field metadata: read from WAVE_* variable `name` only, never from a settings file."""
    return {"env": name, "envOnly": True}


def _env_and_file(name: str) -> dict[str, Any]:
    """Field metadata: a settings-file key that WAVE_* variable `name` also sets."""
    return {"env": name, "envOnly": False}


class ModelCapabilities(BaseModel):
    """`models.<name>.capabilities`."""

    model_config = _CAMEL

    prompt_caching: StrictBool = Field(
        default=False,
        description="Mark the static system block and the last message for prompt caching.",
    )
    vision: StrictBool = Field(default=True, description="The model accepts images.")


class ModelConfig(BaseModel):
    """`models.<name>` in a settings file."""

    model_config = _CAMEL

    capabilities: ModelCapabilities = Field(
        default_factory=ModelCapabilities, description="What the model can do."
    )
    max_input_tokens: Annotated[StrictInt, Field(gt=0)] | None = Field(
        default=None, description="Context window of this model (beats WAVE_MAX_INPUT_TOKENS)."
    )
    options: dict[str, Any] = Field(
        default_factory=dict, description="Extra request parameters sent with every request."
    )


class PermissionsConfig(BaseModel):
    """`permissions`: tool rules and the starting mode."""

    model_config = _CAMEL

    allow: list[StrictStr] = Field(
        default_factory=list,
        description="Rules that run without asking, e.g. `Bash(npm test)` (lists concatenate).",
    )
    deny: list[StrictStr] = Field(
        default_factory=list, description="Rules that are always refused (lists concatenate)."
    )
    default_mode: PermissionMode | None = Field(
        default=None, description="Permission mode a session starts in."
    )


TelemetryExporter = Literal["otlp", "jsonl", "console", "none"]
OtlpProtocol = Literal["http/protobuf", "grpc"]


class TelemetryConfig(BaseModel):
    """`monitoring.telemetry`: OpenTelemetry traces, metrics and events (the OTEL_* variables
    beat every key here)."""

    model_config = _CAMEL

    enabled: StrictBool | None = Field(
        default=None,
        description="Telemetry on or off (OTEL_ENABLED beats it); setting an exporter turns it on.",
    )
    traces_exporter: TelemetryExporter | None = Field(
        default=None, description="Where spans go (OTEL_TRACES_EXPORTER); default `otlp`."
    )
    metrics_exporter: TelemetryExporter | None = Field(
        default=None, description="Where metrics go (OTEL_METRICS_EXPORTER); default `otlp`."
    )
    logs_exporter: TelemetryExporter | None = Field(
        default=None, description="Where events go (OTEL_LOGS_EXPORTER); default `otlp`."
    )
    endpoint: StrictStr | None = Field(
        default=None,
        description="OTLP collector base URL (OTEL_EXPORTER_OTLP_ENDPOINT); default "
        "`http://localhost:4318`, or `:4317` for gRPC.",
    )
    protocol: OtlpProtocol | None = Field(
        default=None,
        description="OTLP over `http/protobuf` or `grpc` (OTEL_EXPORTER_OTLP_PROTOCOL).",
    )
    headers: dict[str, StrictStr] = Field(
        default_factory=dict,
        description="Headers sent to the collector (OTEL_EXPORTER_OTLP_HEADERS beats them).",
    )
    log_user_prompts: StrictBool = Field(
        default=False,
        description="Include prompt text in spans and events (OTEL_LOG_USER_PROMPTS=1).",
    )
    log_tool_content: StrictBool = Field(
        default=False,
        description="Include tool input and output in spans (OTEL_LOG_TOOL_CONTENT=1).",
    )


class MonitoringConfig(BaseModel):
    """`monitoring`: what the agent reports about itself."""

    model_config = _CAMEL

    telemetry: TelemetryConfig = Field(
        default_factory=TelemetryConfig, description="OpenTelemetry export (off by default)."
    )


WebSearchProvider = Literal["searxng", "brave", "tavily"]


class WebSearchConfig(BaseModel):
    """`webSearch`: the backend of the WebSearch tool (not offered without one)."""

    model_config = _CAMEL

    provider: WebSearchProvider = Field(description="`searxng`, `brave` or `tavily`.")
    url: StrictStr | None = Field(
        default=None,
        description="Endpoint (needed for SearXNG; a self-hosted or proxied one for the others).",
    )
    api_key: StrictStr | None = Field(default=None, description="API key (Brave, Tavily).")


class SandboxConfig(BaseModel):
    """`sandbox`: Bash in bubblewrap (Linux): the root read-only, the project, a private `/tmp`
    and `writablePaths` writable."""

    model_config = _CAMEL

    enabled: StrictBool = Field(
        default=False,
        description="Run Bash commands in the sandbox; a sandboxed command needs no approval.",
    )
    network: Literal["none", "allow"] = Field(
        default="none", description="`none`: no network at all in the sandbox, loopback included."
    )
    writable_paths: list[StrictStr] = Field(
        default_factory=list,
        description="Folders writable in the sandbox besides the project and a private /tmp "
        "(never the home folder, its dotfiles, `~/.ssh`, `~/.wave`).",
    )
    excluded_commands: list[StrictStr] = Field(
        default_factory=list,
        description="Commands (names or word prefixes, e.g. `docker`, `git push`) that run "
        "outside the sandbox, after asking.",
    )
    allow_unix_sockets: list[StrictStr] = Field(
        default_factory=list,
        description="Unix socket paths reachable from the sandbox (none otherwise, e.g. "
        "`/var/run/docker.sock`).",
    )


class WorkflowsConfig(BaseModel):
    """`workflows`: the budgets of one workflow run (each phase's agents run in parallel)."""

    model_config = _CAMEL

    max_concurrent_agents: PositiveInt = Field(
        default=4, description="Subagents of one run working at the same time."
    )
    max_agents: PositiveInt = Field(
        default=32,
        description="Subagents one run may start in all; one more fails the run (deep-research "
        "starts 25).",
    )
    max_wall_seconds: Annotated[float, Field(gt=0.0)] = Field(
        default=1800.0, description="Wall time of one run in seconds; past it the run fails."
    )


class SettingsSchema(BaseModel):
    """Everything a settings file or a WAVE_* variable can set (validates one key at a time too:
    a plain model, so validating never reads the process environment)."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        extra="ignore",
        frozen=True,
    )

    # -- settings-file keys ------------------------------------------------------------
    language: StrictStr | None = Field(default=None, description="Language the agent answers in.")
    model: StrictStr | None = Field(
        default=None,
        description="Main model (WAVE_MODEL in the environment beats it; it beats an `env` entry).",
        json_schema_extra=_env_and_file("WAVE_MODEL"),
    )
    fast_model: StrictStr | None = Field(
        default=None,
        description="Model for small side jobs (WAVE_FAST_MODEL works as for `model`).",
        json_schema_extra=_env_and_file("WAVE_FAST_MODEL"),
    )
    vision_model: StrictStr | None = Field(
        default=None,
        description="Model that describes images (the `vision` subagent) for a model with "
        "`capabilities.vision: false`.",
        json_schema_extra=_env_and_file("WAVE_VISION_MODEL"),
    )
    web_search: WebSearchConfig | None = Field(
        default=None, description="WebSearch backend: `{provider, url?, apiKey?}`."
    )
    enable_exec: StrictBool | None = Field(
        default=None,
        description="The Exec tool: while MCP tools are connected, one `Exec(code)` tool runs "
        "JavaScript that calls them, instead of one declaration per tool. Default: on; `false` "
        "gives the flat `mcp__*` declarations back.",
    )
    auto_memory_enabled: StrictBool | None = Field(
        default=None,
        description="Auto memory on or off; only `~/.wave/settings.json` sets it (S6). "
        "Default: on, unless WAVE_DISABLE_AUTO_MEMORY says otherwise.",
    )
    auto_memory_frequency: FrequencyInt | None = Field(
        default=None,
        description="Extract memories every N completed turns; only `~/.wave/settings.json` "
        "sets it (S6). Default: WAVE_AUTO_MEMORY_FREQUENCY, else 1.",
    )
    auto_memory_review: StrictBool = Field(
        default=False,
        description="Auto memory proposals wait in an inbox for review instead of landing.",
    )
    rule_check: Literal["off", "turn", "write"] = Field(
        default="off",
        description="Check the agent's calls against AGENTS.md and the rules with the fast "
        "model: `turn` after each turn (a notice per broken rule), `write` also before each "
        "Write/Edit/Bash a path-scoped rule covers; `off` never.",
    )
    workflows: WorkflowsConfig = Field(
        default_factory=WorkflowsConfig,
        description="Workflow budgets (`maxConcurrentAgents`, `maxAgents`, `maxWallSeconds`).",
    )
    auto_memory_directory: StrictStr | None = Field(
        default=None,
        description="Folder of the auto memory instead of `~/.wave/projects/<id>/memory/` "
        "(absolute or `~/…`); only `~/.wave/settings.json` sets it.",
    )
    auto_memory_writes: MemoryWrites | None = Field(
        default=None,
        description="Who may write auto memory: `auto` (the extraction saves), `review` "
        "(proposals wait in the inbox), `off` (recall only: no extraction, the agent's memory "
        "writes ask). Default: `review` when autoMemoryReview is on, else `auto`.",
    )
    models: dict[str, ModelConfig] = Field(
        default_factory=dict, description="Per-model settings, keyed by model name."
    )
    model_aliases: dict[str, StrictStr] = Field(
        default_factory=dict,
        description="Model names for the aliases agents, commands and skills use "
        '(`{"sonnet": "qwen3-coder"}`; unmapped: `haiku`/`fast` the fast model, the rest the '
        "session's).",
    )
    permissions: PermissionsConfig = Field(
        default_factory=PermissionsConfig, description="Tool permission rules."
    )
    env: dict[str, StrictStr] = Field(
        default_factory=dict,
        description="Environment for tools and WAVE_* defaults (the real environment wins).",
    )
    sandbox: SandboxConfig = Field(
        default_factory=SandboxConfig, description="The Bash sandbox (bubblewrap on Linux)."
    )
    hooks: dict[str, Any] = Field(
        default_factory=dict,
        description="User hooks by event (`PreToolUse`, `Stop`, ...); every file's hooks run.",
    )
    mcp_servers: dict[str, Any] = Field(
        default_factory=dict, description="MCP servers by name (stdio `command` or HTTP `url`)."
    )
    lsp_servers: dict[str, Any] = Field(
        default_factory=dict,
        description="Language servers by name for the LSP tool and diagnostics after edits "
        "(`command`, `args`, `extensionToLanguage`, …).",
    )
    lsp_diagnostics_timeout: Annotated[float, Field(ge=0.0)] = Field(
        default=3.0,
        description="Seconds an edit waits for a language server's diagnostics of the file.",
    )
    notifications: StrictBool = Field(
        default=True,
        description="Ring the terminal bell when a turn ends while the app is unfocused.",
    )
    provider: Literal["ollama", "openai"] | None = Field(
        default=None,
        description="What serves the endpoint, when its address cannot tell: `ollama` has its "
        "window read from Ollama's `/api/show` (as on port 11434); `openai` never probes.",
        json_schema_extra=_env_and_file("WAVE_PROVIDER"),
    )
    first_byte_timeout: Annotated[float, Field(gt=0.0, strict=True)] | None = Field(
        default=None,
        description="Seconds to wait for the model's first byte before the attempt fails.",
    )
    cleanup_period_days: Annotated[StrictInt, Field(ge=0)] = Field(
        default=DEFAULT_CLEANUP_PERIOD_DAYS,
        description="Delete transcripts older than this many days.",
    )
    monitoring: MonitoringConfig = Field(
        default_factory=MonitoringConfig, description="Telemetry (OpenTelemetry)."
    )
    local: StrictBool | None = Field(default=None, description="Run on the local llama.cpp model.")
    local_model: StrictStr | None = Field(
        default=None, description="GGUF file for the local model."
    )

    # -- environment only ----------------------------------------------------------------
    api_key: str | None = Field(
        default=None, description="API key (Bearer token).", json_schema_extra=_env("WAVE_API_KEY")
    )
    base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible endpoint, e.g. `http://127.0.0.1:8080/v1`.",
        json_schema_extra=_env("WAVE_BASE_URL"),
    )
    custom_headers: dict[str, str] | None = Field(
        default=None,
        description="Extra HTTP headers, a JSON object of strings.",
        json_schema_extra=_env("WAVE_CUSTOM_HEADERS"),
    )
    max_input_tokens: PositiveInt | None = Field(
        default=None,
        description=f"Context window when the model has none (default {DEFAULT_MAX_INPUT_TOKENS}).",
        json_schema_extra=_env("WAVE_MAX_INPUT_TOKENS"),
    )
    max_output_tokens: PositiveInt | None = Field(
        default=None,
        description=f"Output token limit (default {DEFAULT_MAX_OUTPUT_TOKENS}).",
        json_schema_extra=_env("WAVE_MAX_OUTPUT_TOKENS"),
    )
    disable_auto_memory: bool | None = Field(
        default=None,
        description="`1`/`true`/`yes` switches auto memory off unless the user file says.",
        json_schema_extra=_env("WAVE_DISABLE_AUTO_MEMORY"),
    )
    env_auto_memory_frequency: FrequencyInt | None = Field(
        default=None,
        description="Auto memory frequency unless the user file says.",
        json_schema_extra=_env("WAVE_AUTO_MEMORY_FREQUENCY"),
    )

    @field_validator("custom_headers", mode="before")
    @classmethod
    def _headers_json(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError("not valid JSON") from exc
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise ValueError("must be a JSON object of string values")
        return value

    @field_validator("disable_auto_memory", mode="before")
    @classmethod
    def _yes_no(cls, value: Any) -> Any:
        if isinstance(value, str):
            word = value.strip().lower()
            if word in _TRUE_WORDS:
                return True
            if word in _FALSE_WORDS:
                return False
            raise ValueError("must be 1/true/yes or 0/false/no")
        return value

    @field_validator("env_auto_memory_frequency", mode="before")
    @classmethod
    def _frequency_int(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError as exc:
                raise ValueError(FREQUENCY_RULE) from exc
        return value


def _extra(name: str, key: str) -> Any:
    extra = SettingsSchema.model_fields[name].json_schema_extra
    return extra.get(key) if isinstance(extra, dict) else None


def _env_of(name: str) -> str | None:
    value = _extra(name, "env")
    return value if isinstance(value, str) else None


# WAVE_* variable -> field; file key (camelCase) -> field. Env-only fields have no file key.
ENV_FIELDS: dict[str, str] = {
    env: name for name in SettingsSchema.model_fields if (env := _env_of(name)) is not None
}
_ENV_ONLY = frozenset(name for name in SettingsSchema.model_fields if _extra(name, "envOnly"))
FILE_KEYS: dict[str, str] = {
    to_camel(name): name for name in SettingsSchema.model_fields if name not in _ENV_ONLY
}
AUTO_MEMORY_KEYS = ("autoMemoryEnabled", "autoMemoryFrequency", "autoMemoryDirectory")
ENV_DISABLE_AUTO_MEMORY = "WAVE_DISABLE_AUTO_MEMORY"
ENV_AUTO_MEMORY_FREQUENCY = "WAVE_AUTO_MEMORY_FREQUENCY"


# -- metadata for UIs and docs ----------------------------------------------------------------


@record(slots=True)
class SettingsField:
    """One settable thing: its JSON key (dotted) and/or WAVE_* variable, type and rules."""

    key: str | None
    env: str | None
    type: str
    description: str
    default: Any
    minimum: float | None = None
    maximum: float | None = None
    minimum_exclusive: bool = False
    choices: tuple[str, ...] = ()


def _type_name(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _type_name(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        names = [_type_name(a) for a in get_args(annotation) if a is not type(None)]
        return " | ".join(dict.fromkeys(names))
    if origin is Literal:
        return "string"
    if origin in (dict, typing.Mapping) or (
        isinstance(annotation, type) and issubclass(annotation, BaseModel)
    ):
        return "object"
    if origin is list:
        return "list of " + _type_name(get_args(annotation)[0])
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    for python_type, name in simple.items():
        if annotation is python_type or (
            isinstance(annotation, type) and issubclass(annotation, python_type)
        ):
            return name
    return "any"


def _choices(annotation: Any) -> tuple[str, ...]:
    for arg in (annotation, *get_args(annotation)):
        if get_origin(arg) is Literal:
            return tuple(str(a) for a in get_args(arg))
    return ()


def _bounds(metadata: list[Any], annotation: Any) -> tuple[float | None, float | None, bool]:
    """(minimum, maximum, minimum is exclusive); an integer `gt=n` becomes minimum n+1."""
    low: float | None = None
    exclusive = False
    high: float | None = None
    items = list(metadata)
    for arg in (annotation, *get_args(annotation)):
        if get_origin(arg) is Annotated:
            items.extend(getattr(arg, "__metadata__", ()))
            items.extend(getattr(a, "metadata", ()) for a in get_args(arg)[1:])
    flat: list[Any] = []
    for item in items:
        flat.extend(item if isinstance(item, list) else [item])
    for item in flat:
        for attr, is_low in (("ge", True), ("gt", True), ("le", False), ("lt", False)):
            value = getattr(item, attr, None)
            if isinstance(value, int | float):
                if not is_low:
                    high = value
                elif attr == "gt" and isinstance(value, int):
                    low = value + 1
                else:
                    low, exclusive = value, attr == "gt"
    return low, high, exclusive


def _model_fields(model: type[BaseModel], prefix: str) -> list[SettingsField]:
    out: list[SettingsField] = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        env_only = model is SettingsSchema and name in _ENV_ONLY
        key = None if env_only else prefix + to_camel(name)
        env = _env_of(name) if model is SettingsSchema else None
        default = None if info.default_factory is not None else info.default
        low, high, exclusive = _bounds(info.metadata, annotation)
        out.append(
            SettingsField(
                key=key,
                env=env,
                type=_type_name(annotation),
                description=info.description or "",
                default=default,
                minimum=low,
                maximum=high,
                minimum_exclusive=exclusive,
                choices=_choices(annotation),
            )
        )
        if key is None:
            continue
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            out.extend(_model_fields(annotation, key + "."))
        elif get_origin(annotation) is dict:
            value_type = get_args(annotation)[1]
            if isinstance(value_type, type) and issubclass(value_type, BaseModel):
                out.extend(_model_fields(value_type, key + ".<name>."))
    return out


def settings_fields() -> list[SettingsField]:
    """Every settings-file key (nested ones dotted) and every WAVE_* variable, schema order."""
    return _model_fields(SettingsSchema, "")
