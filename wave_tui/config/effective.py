"""The settings in force for one turn: a plain frozen snapshot built from the schema."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from wave_tui.config.modes import PermissionMode
from wave_tui.config.records import record
from wave_tui.config.schema import (
    DEFAULT_AUTO_MEMORY_ENABLED,
    DEFAULT_AUTO_MEMORY_FREQUENCY,
    DEFAULT_CLEANUP_PERIOD_DAYS,
    DEFAULT_MAX_INPUT_TOKENS,
    DEFAULT_MAX_OUTPUT_TOKENS,
    MemoryWrites,
    ModelConfig,
    SandboxConfig,
    SettingsSchema,
    WebSearchConfig,
    WorkflowsConfig,
)

# -- the result -----------------------------------------------------------------------------


@record(slots=True)
class EffectivePermissions:
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    default_mode: PermissionMode | None = None


@record(slots=True)
class EffectiveSettings:
    """Everything in force for one turn. Build a new one rather than changing this."""

    model: str | None = None
    fast_model: str | None = None
    vision_model: str | None = None
    web_search: WebSearchConfig | None = None
    enable_exec: bool = True  # EX5: `enableExec: false` gives flat MCP declarations back
    api_key: str | None = None
    base_url: str | None = None
    custom_headers: dict[str, str] = field(default_factory=dict)
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    language: str | None = None
    auto_memory_enabled: bool = DEFAULT_AUTO_MEMORY_ENABLED
    auto_memory_frequency: int = DEFAULT_AUTO_MEMORY_FREQUENCY
    models: dict[str, ModelConfig] = field(default_factory=dict)
    model_aliases: dict[str, str] = field(default_factory=dict)
    permissions: EffectivePermissions = field(default_factory=EffectivePermissions)
    env: dict[str, str] = field(default_factory=dict)
    cleanup_period_days: int = DEFAULT_CLEANUP_PERIOD_DAYS
    local: bool | None = None
    local_model: str | None = None
    auto_memory_review: bool = False
    auto_memory_writes: MemoryWrites = "auto"
    workflows: WorkflowsConfig = field(default_factory=WorkflowsConfig)
    rule_check: str = "off"  # off | turn | write (MR3)
    notifications: bool = True
    first_byte_timeout: float | None = None
    provider: str | None = None  # "ollama" | "openai": what serves the endpoint, if said
    # Merged across files like any object; features that run every file's hooks use layers().
    hooks: dict[str, Any] = field(default_factory=dict)
    mcp_servers: dict[str, Any] = field(default_factory=dict)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    extras: dict[str, Any] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    def model_config_for(self, name: str | None) -> ModelConfig:
        return self.models.get(name or "") or ModelConfig()


def resolve_max_input_tokens(
    settings: EffectiveSettings, model: str | None, override: int | None = None
) -> int:
    """override > `models.<model>.maxInputTokens` > WAVE_MAX_INPUT_TOKENS > default."""
    if override is not None:
        return override
    per_model = settings.model_config_for(model).max_input_tokens
    if per_model is not None:
        return per_model
    if settings.max_input_tokens is not None:
        return settings.max_input_tokens
    return DEFAULT_MAX_INPUT_TOKENS


def resolve_max_output_tokens(
    settings: EffectiveSettings, model: str | None = None, override: int | None = None
) -> int:
    """override > WAVE_MAX_OUTPUT_TOKENS > default (no per-model key exists for output)."""
    if override is not None:
        return override
    if settings.max_output_tokens is not None:
        return settings.max_output_tokens
    return DEFAULT_MAX_OUTPUT_TOKENS


# -- building the result ----------------------------------------------------------------------


# req: MR1
def memory_writes(parsed: SettingsSchema) -> MemoryWrites:
    """`autoMemoryWrites` when set; the older `autoMemoryReview: true` still means `review`."""
    if parsed.auto_memory_writes is not None:
        return parsed.auto_memory_writes
    return "review" if parsed.auto_memory_review else "auto"


# req: S6
def effective_settings(
    parsed: SettingsSchema, extras: dict[str, Any], problems: list[str]
) -> EffectiveSettings:
    """What is in force, from the schema as the sources filled it (S6 applied here)."""
    if parsed.auto_memory_enabled is not None:
        enabled = parsed.auto_memory_enabled
    elif parsed.disable_auto_memory is not None:
        enabled = not parsed.disable_auto_memory
    else:
        enabled = DEFAULT_AUTO_MEMORY_ENABLED
    frequency = (
        parsed.auto_memory_frequency
        or parsed.env_auto_memory_frequency
        or DEFAULT_AUTO_MEMORY_FREQUENCY
    )
    writes = memory_writes(parsed)
    return EffectiveSettings(
        model=parsed.model,
        fast_model=parsed.fast_model,
        vision_model=parsed.vision_model,
        web_search=parsed.web_search,
        enable_exec=parsed.enable_exec is not False,
        api_key=parsed.api_key,
        base_url=parsed.base_url,
        custom_headers=dict(parsed.custom_headers or {}),
        max_input_tokens=parsed.max_input_tokens,
        max_output_tokens=parsed.max_output_tokens,
        language=parsed.language,
        auto_memory_enabled=enabled,
        auto_memory_frequency=frequency,
        models=dict(parsed.models),
        model_aliases=dict(parsed.model_aliases),
        permissions=EffectivePermissions(
            allow=tuple(parsed.permissions.allow),
            deny=tuple(parsed.permissions.deny),
            default_mode=parsed.permissions.default_mode,
        ),
        env=dict(parsed.env),
        cleanup_period_days=parsed.cleanup_period_days,
        local=parsed.local,
        local_model=parsed.local_model,
        auto_memory_review=writes == "review",
        auto_memory_writes=writes,
        workflows=parsed.workflows,
        rule_check=parsed.rule_check,
        notifications=parsed.notifications,
        first_byte_timeout=parsed.first_byte_timeout,
        provider=parsed.provider,
        hooks=dict(parsed.hooks),
        mcp_servers=dict(parsed.mcp_servers),
        sandbox=parsed.sandbox,
        extras=extras,
        problems=tuple(dict.fromkeys(problems)),
    )
