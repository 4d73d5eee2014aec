"""The model names Claude Code's agents, commands and skills use (`model: sonnet`), mapped to
models this endpoint has: settings `modelAliases` first; unmapped, `haiku` and `fast` are the fast
model and `inherit`, `sonnet` and `opus` the session's own. An alias never reaches the wire."""

from __future__ import annotations

from wave_tui.config.effective import EffectiveSettings

FAST_ALIASES = frozenset({"haiku", "fast"})
SESSION_ALIASES = frozenset({"inherit", "sonnet", "opus"})


# req: PH5
def resolve_model(name: str | None, settings: EffectiveSettings) -> str | None:
    """The model a frontmatter `model` names, or None for the session's own model."""
    if not name:
        return None
    mapped = settings.model_aliases.get(name, "").strip()
    if mapped:
        return mapped
    if name in FAST_ALIASES:
        return settings.fast_model or None
    if name in SESSION_ALIASES:
        return None
    return name
