"""One workflow run: the script in the embedded JavaScript engine, its phases' subagents in
parallel under the run's budgets, every step recorded on the run.

The script is an async function's body that sees `args` (the Workflow call's `args`) and
`phase(name, agents)`: it starts every agent of `agents` (`{prompt, description?,
subagent_type?}`) at once — at most `maxConcurrentAgents` working at a time — waits for all of
them, and resolves to one `{ok, text}` or `{ok: false, error}` per agent, in order. Phases run one
after another (the engine answers one host call at a time); what the script returns is the run's
result. Budgets: more agents in all than `maxAgents`, or a run past `maxWallSeconds`, fails the
run; a failing agent fails only its own entry.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from wave_tui.config.schema import WorkflowsConfig
from wave_tui.features.workflows.discovery import WorkflowDef
from wave_tui.features.workflows.runs import (
    RESULT_CHARS,
    AgentRecord,
    PhaseRecord,
    WorkflowRun,
    WorkflowRuns,
)
from wave_tui.permissions.rules import PermissionRule
from wave_tui.tools.js_engine import HostRefusal, JsAbort, JsLimits, run_js

DEFAULT_SUBAGENT = "general-purpose"
LOG_CHARS = 20_000  # console output a run keeps
_PRELUDE = """\
const args = {args};
const phase = (name, agents) => __workflow.phase({{ name, agents }});
"""


class AgentStarter(Protocol):
    async def __call__(
        self,
        subagent_type: str,
        prompt: str,
        description: str,
        on_tokens: Callable[[int], None],
        grants: Sequence[PermissionRule],
    ) -> str:
        """Run one subagent to its end (through the normal permission pipeline, `grants`
        allowed besides): its text."""
        ...


def script_of(workflow: WorkflowDef, args: Any) -> str:
    """The run's code: the prelude, then the workflow in a block of its own (its names may
    shadow the prelude's)."""
    prelude = _PRELUDE.format(args=json.dumps(args, ensure_ascii=False))
    return f"{prelude}{{\n{workflow.code}\n}}"


def _agent_specs(raw: Any) -> tuple[str, list[tuple[str, str, str]]]:
    """(phase name, [(subagent type, prompt, description)]) from the script's call."""
    if not isinstance(raw, dict):
        raise HostRefusal("phase(name, agents) needs a name and a list of agents")
    name, agents = raw.get("name"), raw.get("agents")
    if not isinstance(name, str) or not name.strip():
        raise HostRefusal("phase(name, agents): name must be a non-empty string")
    if not isinstance(agents, list) or not agents:
        raise HostRefusal("phase(name, agents): agents must be a non-empty list")
    specs: list[tuple[str, str, str]] = []
    for index, agent in enumerate(agents):
        if isinstance(agent, str):
            agent = {"prompt": agent}
        prompt = agent.get("prompt") if isinstance(agent, dict) else None
        if not isinstance(prompt, str) or not prompt.strip():
            raise HostRefusal(f"phase {name!r}: agent {index} needs a non-empty prompt")
        kind = agent.get("subagent_type") or DEFAULT_SUBAGENT
        description = agent.get("description") or f"{name} {index + 1}"
        specs.append((str(kind), prompt, str(description)))
    return name.strip(), specs


class RunDriver:
    """Drives `run` of `workflow` to its end; the record follows every step."""

    def __init__(
        self,
        run: WorkflowRun,
        runs: WorkflowRuns,
        start_agent: AgentStarter,
        budget: WorkflowsConfig,
        grants: Sequence[PermissionRule] = (),
    ) -> None:
        self.grants = tuple(grants)  # what the user allowed this run's agents
        self.run = run
        self.runs = runs
        self.start_agent = start_agent
        self.budget = budget
        self._at_once = asyncio.Semaphore(budget.max_concurrent_agents)

    # req: WK1
    async def execute(self, workflow: WorkflowDef) -> None:
        run = self.run
        limits = JsLimits(wall_s=self.budget.max_wall_seconds, log_chars=LOG_CHARS)
        functions: dict[tuple[str, ...], Callable[[Any], Awaitable[Any]]] = {
            ("__workflow", "phase"): self._phase
        }
        try:
            outcome = await run_js(script_of(workflow, run.args), functions, limits)
        except asyncio.CancelledError:
            run.status = "stopped"
            self.runs.changed(run)
            raise
        run.logs = outcome.logs
        if outcome.error is not None:
            run.status, run.error = "failed", outcome.error
        else:
            value = json.loads(outcome.value_json or "null")
            run.status = "completed"
            run.result = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        self.runs.changed(run)

    # req: WK1
    async def _phase(self, raw: Any) -> list[dict[str, Any]]:
        name, specs = _agent_specs(raw)
        run, limit = self.run, self.budget.max_agents
        if run.agents_started + len(specs) > limit:
            raise JsAbort(
                f"the workflow would start more than {limit} agents (settings "
                f"`workflows.maxAgents`); phase {name!r} wanted {len(specs)} more after "
                f"{run.agents_started}"
            )
        phase = PhaseRecord(name, [AgentRecord(d, kind) for kind, _p, d in specs])
        run.phases.append(phase)
        self.runs.changed(run)
        return list(
            await asyncio.gather(
                *(
                    self._one(record, kind, prompt)
                    for record, (kind, prompt, _d) in zip(phase.agents, specs, strict=True)
                )
            )
        )

    async def _one(self, record: AgentRecord, kind: str, prompt: str) -> dict[str, Any]:
        def tokens(total: int) -> None:
            record.tokens += total
            self.runs.changed(self.run)

        try:
            async with self._at_once:
                text = await self.start_agent(kind, prompt, record.description, tokens, self.grants)
        except asyncio.CancelledError:
            record.status = "stopped"
            self.runs.changed(self.run)
            raise
        except Exception as exc:  # the agent's failure is its entry's result, not the run's
            record.status, record.result = "failed", f"{type(exc).__name__}: {exc}"
            self.runs.changed(self.run)
            return {"ok": False, "error": record.result}
        record.status, record.result = "completed", text.strip()[:RESULT_CHARS]
        self.runs.changed(self.run)
        return {"ok": True, "text": text.strip()}
