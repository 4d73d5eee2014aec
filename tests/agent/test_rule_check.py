"""Rules that are checked, not only loaded (MR3): `ruleCheck: "turn"` asks the fast model after
each turn which rule a call broke (a notice, an isMeta record, `/context`, the fork's evidence);
`wave memory audit [--session ID] [--json]` runs the same check over a past session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.extraction_helpers import is_fork
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.features.memory.context_report import build_context_report
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.memory.rule_check import CHECK_SYSTEM
from wave_tui.session.factory import create_service

pytestmark = pytest.mark.req("MR3")
AGENTS = "- Never force-push to main.\n- Write tests for every fix.\n"
VERDICT = {"violations": [{"rule": "project:AGENTS.md#1", "call": 1, "reason": "it force-pushes"}]}


def is_check(body: dict[str, Any]) -> bool:
    return body["messages"][0].get("content") == CHECK_SYSTEM


def is_turn(body: dict[str, Any]) -> bool:
    return not is_check(body) and not is_fork(body)


def user_settings(**values: object) -> None:
    path = Path.home() / ".wave" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values))


def push_turn(server: ModelServer) -> None:
    server.enqueue(
        tool_call("Bash", {"command": "echo git push --force origin main"}),
        text("pushed"),
        when=is_turn,
    )


def test_audit_checks_a_past_session_and_prints_the_contract_json(
    model_server: ModelServer, project: Path
) -> None:
    user_settings(autoMemoryEnabled=False)
    (project / "AGENTS.md").write_text(AGENTS)
    push_turn(model_server)
    first = run_wave(
        "-p", "push it", "--permission-mode", "bypassPermissions", cwd=project, server=model_server
    )
    assert first.returncode == 0, first.stderr
    noise = {"rule": "made-up", "call": 9, "reason": "x"}  # unknown rule and call: ignored
    verdict = {"violations": [*VERDICT["violations"], noise]}
    model_server.enqueue(text(json.dumps(verdict)), when=is_check)

    audited = run_wave("memory", "audit", "--json", cwd=project, server=model_server)
    assert audited.returncode == 0, audited.stderr
    assert json.loads(audited.stdout) == [
        {
            "rule": {
                "id": "project:AGENTS.md#1",
                "scope": "project",
                "text": "Never force-push to main.",
            },
            "call": {"tool": "Bash", "input": {"command": "echo git push --force origin main"}},
            "reason": "it force-pushes",
        }
    ]
    check = next(r.body for r in model_server.requests if is_check(r.body))
    asked = check["messages"][-1]["content"]
    assert "[project:AGENTS.md#2] Write tests for every fix." in asked
    assert '1. Bash {"command": "echo git push --force origin main"}' in asked

    model_server.enqueue(text(json.dumps(VERDICT)), when=is_check)
    plain = run_wave("memory", "audit", cwd=project, server=model_server)
    assert plain.stdout.startswith("rule project:AGENTS.md#1 may be broken by Bash(")
    assert plain.stdout.rstrip().endswith(": it force-pushes")
    unknown = run_wave("memory", "audit", "--session", "nope", cwd=project, server=model_server)
    assert unknown.returncode == 1 and "no session of this project match 'nope'" in unknown.stderr


@pytest.fixture
async def service(model_server: ModelServer, project: Path):
    env = {"WAVE_BASE_URL": model_server.base_url, "WAVE_MODEL": "test-model"}
    made = create_service(
        AgentOptions(workdir=project, environ=env, permission_mode="bypassPermissions")
    )
    made.start()
    yield made
    await made.destroy()


async def test_turn_mode_notices_records_counts_and_feeds_the_fork(
    service: AgentService, model_server: ModelServer, project: Path
) -> None:
    user_settings(ruleCheck="turn")
    (project / "AGENTS.md").write_text(AGENTS)
    push_turn(model_server)
    model_server.enqueue(
        text(json.dumps(VERDICT)), text(json.dumps({"violations": []})), when=is_check
    )
    model_server.enqueue(text("nothing"), text("nothing"), when=is_fork)
    model_server.enqueue(text("second"), when=is_turn)
    notices: list[str] = []
    service.subscribe(lambda e: notices.append(e.text) if isinstance(e, ev.Notice) else None)

    await service.run_turn("push it")
    await service.extensions.of_type(ExtractionHook).wait()
    (notice,) = [n for n in notices if "may be broken" in n]
    assert notice.startswith("rule project:AGENTS.md#1 may be broken by Bash(")
    assert notice.endswith(": it force-pushes")
    (meta,) = [m for m in service.messages if "ruleViolations" in m.meta]
    assert meta.is_meta and meta.meta["ruleViolations"][0]["rule"]["id"] == "project:AGENTS.md#1"
    report = build_context_report(service)
    assert report.rule_violations == 1
    assert "Rule check: 1 possible violation(s) this session" in report.render()

    await service.run_turn("anything else?")  # no call: no check request
    await service.extensions.of_type(ExtractionHook).wait()
    assert sum(is_check(r.body) for r in model_server.requests) == 1
    last_fork = [r.body for r in model_server.requests if is_fork(r.body)][-1]
    assert (
        "rule project:AGENTS.md#1 by Bash: it force-pushes" in last_fork["messages"][-1]["content"]
    )


async def test_off_is_the_default_and_asks_nothing(
    service: AgentService, model_server: ModelServer, project: Path
) -> None:
    user_settings(autoMemoryEnabled=False)
    (project / "AGENTS.md").write_text(AGENTS)
    push_turn(model_server)
    await service.run_turn("push it")
    assert not any(is_check(r.body) for r in model_server.requests)


async def test_write_mode_asks_before_a_write_a_path_rule_covers(
    service: AgentService, model_server: ModelServer, project: Path
) -> None:
    user_settings(ruleCheck="write", autoMemoryEnabled=False)
    rules = project / ".wave" / "rules"
    rules.mkdir(parents=True)
    (rules / "api.md").write_text(
        "---\npaths: src/api/**\n---\nEvery handler validates its input.\n"
    )
    verdict = {"violations": [{"rule": "rule:project:api.md", "call": 1, "reason": "no check"}]}
    model_server.enqueue(
        tool_call("Write", {"file_path": "notes.txt", "content": "free\n"}),
        tool_call("Write", {"file_path": "src/api/h.py", "content": "def h(x): return x\n"}),
        text("done"),
        when=is_turn,
    )
    model_server.enqueue(
        text(json.dumps(verdict)), text(json.dumps({"violations": []})), when=is_check
    )
    asked: list[str] = []

    def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.PermissionRequested):
            asked.append(event.reason)
            event.future.set_result("deny")

    service.subscribe(on_event)
    await service.run_turn("add a handler")
    assert (project / "notes.txt").read_text() == "free\n"  # no rule covers it: not checked
    assert not (project / "src" / "api" / "h.py").exists()
    (reason,) = asked
    assert "rule rule:project:api.md may be broken by Write(" in reason
    assert 'the rule: "Every handler validates its input. (applies to src/api/**)"' in reason
    first_check = next(r.body for r in model_server.requests if is_check(r.body))
    assert "src/api/h.py" in first_check["messages"][-1]["content"]


def test_a_violation_is_a_rule_violation_telemetry_event(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    user_settings(ruleCheck="turn", autoMemoryEnabled=False)
    (project / "AGENTS.md").write_text(AGENTS)
    push_turn(model_server)
    model_server.enqueue(text(json.dumps(VERDICT)), when=is_check)
    proc = run_wave(
        "-p",
        "push it",
        "--allowedTools",
        "Bash",
        cwd=project,
        server=model_server,
        env={"OTEL_TRACES_EXPORTER": "jsonl"},
    )
    assert proc.returncode == 0, proc.stderr
    lines = (isolated_home / ".wave" / "telemetry.jsonl").read_text().splitlines()
    found = [json.loads(line) for line in lines if '"rule_violation"' in line]
    (event,) = [r for r in found if r["name"] == "rule_violation"]
    assert event["attributes"]["rule_id"] == "project:AGENTS.md#1"
    assert event["attributes"]["tool_name"] == "Bash"
    assert event["attributes"]["check"] == "turn"
