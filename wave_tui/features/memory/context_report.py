"""What the next request costs, per source (MX2): `/context` and `wave context [--json]`.

Computed from the request the service would build now (`build_request()`), never sent. Each
source is estimated from its text (`estimate_tokens`; the reminder's lead-in counts with its
first part) and the total is the sum of the rows shown (CV14). When the endpoint counted the last
request, every row is put in the endpoint's tokens: scaled by its count over our estimate of
that request (a tokenizer's ratio, still right after a compaction or `/clear` replaced the
history), and the report is not `estimated`. The window is the one in force, lowered to what the
endpoint said (CV11). Memory sources are the MEMORY.md index, each AGENTS.md of the chain, the
user AGENTS.md, unconditional rules (in the reminder), conditional rules and nested memory
loaded so far (isMeta messages); a warning fires when they take more than `MEMORY_WARN_SHARE`
of the window.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from wave_tui.agent.compaction import estimate_tokens
from wave_tui.config.paths import display_path
from wave_tui.config.records import record
from wave_tui.features.memory.auto_memory_hook import AutoMemoryHook
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.features.memory.injection_hook import MemoryInjectionHook
from wave_tui.features.memory.rule_check_hook import RuleCheckHook
from wave_tui.llm.images import split_image_tokens
from wave_tui.llm.wire import message_to_wire
from wave_tui.memory.injection import MEMORY_LEAD_IN, META_NESTED, META_RULE_ID
from wave_tui.memory.prompts import render_memory_index_block

if TYPE_CHECKING:
    from wave_tui.agent.service import AgentService

SourceKind = Literal[
    "system_static",
    "system_dynamic",
    "memory_index",
    "agents_md",
    "user_agents_md",
    "team_memory",
    "rule",
    "nested",
    "tools",
    "conversation",
]
MEMORY_KINDS: frozenset[str] = frozenset(
    {"memory_index", "agents_md", "user_agents_md", "team_memory", "rule", "nested"}
)
MEMORY_WARN_SHARE = 0.25  # memory alone above this share of the window is worth a warning


# req: MX2
@record
class SourceCost:
    kind: SourceKind
    name: str
    tokens: int


@record
class ContextReport:
    total_tokens: int
    window_tokens: int
    estimated: bool
    sources: list[SourceCost]
    main_cache_hit: float | None  # cache-hit ratio of the last main request, if any
    fork_cache_hit: float | None  # … and of the last extraction fork request
    warning: str | None
    root: Path  # the project: the text shows paths as everywhere else (JSON keeps them whole)
    rule_violations: int = 0  # found by `ruleCheck` in this session (MR3)

    @property
    def memory_tokens(self) -> int:
        return sum(s.tokens for s in self.sources if s.kind in MEMORY_KINDS)

    def share(self, tokens: int) -> float:
        return tokens / self.window_tokens if self.window_tokens else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "total_tokens": self.total_tokens,
            "window_tokens": self.window_tokens,
            "estimated": self.estimated,
            "sources": [asdict(s) for s in self.sources],
            "memory_tokens": self.memory_tokens,
            "cache_hit_ratio": {"main": self.main_cache_hit, "fork": self.fork_cache_hit},
            "warning": self.warning,
            "rule_violations": self.rule_violations,
        }

    def render(self) -> str:
        approx = "~" if self.estimated else ""
        lines = [
            f"Next request: {approx}{self.total_tokens:,} tokens of a {self.window_tokens:,}-token "
            f"window ({self.share(self.total_tokens):.1%})"
            + (" — estimated" if self.estimated else ""),
        ]
        names = [self._shown(s) for s in self.sources]
        width = max(map(len, names), default=0)
        for s, name in zip(self.sources, names, strict=True):
            lines.append(
                f"  {s.kind:<15} {name:<{width}}  {s.tokens:>8,}  {self.share(s.tokens):6.1%}"
            )
        lines.append(
            f"  memory total: {self.memory_tokens:,} tokens ({self.share(self.memory_tokens):.1%})"
        )
        lines.append(
            f"Cache hits: last main request {_ratio(self.main_cache_hit)}, "
            f"last fork {_ratio(self.fork_cache_hit)}"
        )
        if self.rule_violations:
            lines.append(f"Rule check: {self.rule_violations} possible violation(s) this session")
        if self.warning:
            lines += [f"warning: {line}" for line in self.warning.splitlines()]
        return "\n".join(lines)

    def _shown(self, source: SourceCost) -> str:
        if source.kind in MEMORY_KINDS and source.name.startswith("/"):
            return display_path(source.name, self.root)
        return source.name


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _tokens(value: object) -> int:
    if isinstance(value, str):
        return estimate_tokens(value)
    text, images = split_image_tokens(value)  # an image by its size, not its base64
    return estimate_tokens(json.dumps(text)) + images


def _fork_cache_hit(service: AgentService) -> float | None:
    hook = service.extensions.of_type(ExtractionHook)
    if hook is not None and hook.last_record and hook.last_record.usage:
        last = hook.last_record.usage[-1]
        prompt = last.get("prompt_tokens", 0)
        return last.get("cache_read_tokens", 0) / prompt if prompt else 0.0
    return None


def _memory_index_block(service: AgentService) -> str | None:
    hook = service.extensions.of_type(AutoMemoryHook)
    if hook is not None and hook.enabled and hook.index is not None:
        return render_memory_index_block(hook.index.text, hook.index.warning)
    return None


def _reminder_sources(service: AgentService) -> list[SourceCost]:
    """The reminder's parts; its lead-in counts with the first (the rows add up, CV14)."""
    hook = service.extensions.of_type(MemoryInjectionHook)
    if hook is None:
        return []
    rows = [
        SourceCost(part.kind, part.name, _tokens(f"{part.label}\n\n{part.text.strip()}"))
        for part in hook.injector.reminder_parts()
        if part.text.strip()
    ]
    if rows:
        first = rows[0]
        rows[0] = SourceCost(first.kind, first.name, first.tokens + _tokens(MEMORY_LEAD_IN))
    return rows


# req: MR6
def _oversize(service: AgentService) -> list[str]:
    """Each always-loaded memory too big to carry in every request (built with the request)."""
    hook = service.extensions.of_type(MemoryInjectionHook)
    return hook.oversize() if hook is not None else []


# req: CV14
def _in_endpoint_tokens(
    sources: list[SourceCost], body: dict[str, Any], service: AgentService
) -> list[SourceCost] | None:
    """The rows scaled to the endpoint's count (None when it counted no request yet): its
    count of the last request over our estimate of it, applied to the next one."""
    usage, last = service.last_usage, service.last_request
    if usage is None or last is None or not usage.prompt_tokens or usage.estimated:
        return None
    estimate = sum(s.tokens for s in sources)
    if not estimate:
        return None
    total = usage.prompt_tokens * _tokens(body) / max(1, _tokens(last))
    factor = total / estimate
    return [SourceCost(s.kind, s.name, round(s.tokens * factor)) for s in sources]


def build_context_report(service: AgentService) -> ContextReport:
    """The cost of the request `service` would send next, per source. Sends nothing."""
    body = service.build_request()
    system = service.system_prompt()
    sources = [SourceCost("system_static", "static system prompt", _tokens(system.static))]
    dynamic = system.dynamic
    index_block = _memory_index_block(service)
    index_tokens = 0
    if index_block and index_block in dynamic:
        index_tokens = _tokens(index_block)
        dynamic = dynamic.replace(index_block, "", 1)
    sources.append(SourceCost("system_dynamic", "dynamic system prompt", _tokens(dynamic)))
    if index_tokens:
        sources.append(SourceCost("memory_index", str(service.paths.memory_index), index_tokens))
    sources += _reminder_sources(service)
    conversation = images = 0
    for message in service.messages:
        cost = _tokens(message_to_wire(message))
        if message.is_meta and META_RULE_ID in message.meta:
            sources.append(SourceCost("rule", str(message.meta[META_RULE_ID]), cost))
        elif message.is_meta and META_NESTED in message.meta:
            sources.append(SourceCost("nested", str(message.meta[META_NESTED]), cost))
        else:
            conversation += cost  # an image counted by its size (`_tokens`)
            images += len(message.images or ())
    for tool in body.get("tools", []):
        name = str(tool.get("function", {}).get("name", "tool"))
        sources.append(SourceCost("tools", name, _tokens(tool)))
    held = f"{len(service.messages)} messages" + (
        f", {images} image{'s' * (images != 1)}" if images else ""
    )
    sources.append(SourceCost("conversation", held, conversation))
    counted = _in_endpoint_tokens(sources, body, service)
    estimated = counted is None
    sources = sources if counted is None else counted
    total = sum(s.tokens for s in sources)
    window = service.runner.input_limit(service.model or "")
    usage = service.last_usage
    memory = sum(s.tokens for s in sources if s.kind in MEMORY_KINDS)
    warnings = _oversize(service)
    if window and memory > MEMORY_WARN_SHARE * window:
        warnings.append(
            f"memory takes {memory:,} tokens, {memory / window:.0%} of the window "
            f"(more than {MEMORY_WARN_SHARE:.0%}); trim AGENTS.md, rules or MEMORY.md"
        )
    warning = "\n".join(warnings) or None
    return ContextReport(
        total_tokens=total,
        window_tokens=window,
        estimated=estimated,
        sources=sources,
        main_cache_hit=usage.cache_hit_ratio if usage is not None else None,
        fork_cache_hit=_fork_cache_hit(service),
        warning=warning,
        root=service.paths.project_root,
        rule_violations=_rule_violations(service),
    )


# req: MR3
def _rule_violations(service: AgentService) -> int:
    hook = service.extensions.of_type(RuleCheckHook)
    return len(hook.found) if hook is not None else 0
