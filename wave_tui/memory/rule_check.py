"""Rules that are checked, not only loaded (MR3): the fast model gets tool calls with the rules
and AGENTS.md lines in force and names each one a call broke, with the rule's id and the call.

One request for a whole turn (or a whole past session, `wave memory audit`); the answer is JSON
naming rules by id and calls by number, so a reply cannot invent either."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wave_tui.config.fileio import file_lock
from wave_tui.config.records import record
from wave_tui.llm.types import Message
from wave_tui.memory.catalog import MemoryEntry
from wave_tui.memory.conflicts import Side
from wave_tui.memory.fast_verdict import ChatClient, answer_of, json_in, verdict_request
from wave_tui.memory.frontmatter import parse_frontmatter

RULE_TEXT_MAX = 1_500  # characters of one rule sent; a longer one is cut
INPUT_MAX = 2_000  # characters of one call's input sent
CHECK_SYSTEM = (
    "You check a coding agent's tool calls against the rules its user gave it. Name a rule only "
    "when a call clearly goes against it; a rule that does not apply to the call is not broken. "
    "Answer with one JSON object only."
)


# A rule in force is one memory line with its id and scope: the record a conflict's sides are.
RuleInForce = Side


@record
class CheckedCall:
    tool: str
    input: dict[str, Any]

    def line(self) -> str:
        shown = json.dumps(self.input, ensure_ascii=False)
        return f"{self.tool}({shown[:80]}{'…' if len(shown) > 80 else ''})"


# req: MR3
@record
class Violation:
    rule: RuleInForce
    call: CheckedCall
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule.to_json(),
            "call": {"tool": self.call.tool, "input": self.call.input},
            "reason": self.reason,
        }

    def notice(self) -> str:
        """`rule <id> may be broken by <tool call>: <reason>` (the chat's one line)."""
        return f"rule {self.rule.id} may be broken by {self.call.line()}: {self.reason}"


# req: MR3
def rules_in_force(entries: Sequence[MemoryEntry]) -> list[RuleInForce]:
    """AGENTS.md lines (project and user) and every active rule, by their entry ids."""
    rules: list[RuleInForce] = []
    for entry in entries:
        if entry.scope in ("project", "user"):
            rules.append(RuleInForce(entry.id, entry.scope, entry.body.strip()))
        elif entry.scope == "rule" and entry.status in ("always", "conditional"):
            text = parse_frontmatter(entry.body).body.strip()
            patterns = (entry.reason or "").split(": ", 1)[-1]
            where = f" (applies to {patterns})" if entry.status == "conditional" else ""
            rules.append(RuleInForce(entry.id, "rule", f"{text}{where}"))
    return [r for r in rules if r.text]


def calls_of(messages: Sequence[Message]) -> list[CheckedCall]:
    """Every tool call the assistant made in `messages`, in order."""
    calls: list[CheckedCall] = []
    for message in messages:
        for call in message.tool_calls if message.role == "assistant" else ():
            try:
                args = json.loads(call.arguments or "{}")
            except ValueError:
                args = {"raw": call.arguments}
            calls.append(CheckedCall(call.name, args if isinstance(args, dict) else {"raw": args}))
    return calls


def check_request(
    model: str, rules: Sequence[RuleInForce], calls: Sequence[CheckedCall]
) -> dict[str, Any]:
    listed_rules = "\n".join(f"- [{r.id}] {r.text[:RULE_TEXT_MAX]}" for r in rules)
    listed_calls = "\n".join(
        f"{n}. {c.tool} {json.dumps(c.input, ensure_ascii=False)[:INPUT_MAX]}"
        for n, c in enumerate(calls, start=1)
    )
    ask = (
        f"Rules (by id):\n{listed_rules}\n\nTool calls (by number):\n{listed_calls}\n\n"
        'Answer {"violations": [{"rule": "<rule id>", "call": <call number>, "reason": "<one '
        'short sentence>"}]}; an empty list when no call breaks a rule.'
    )
    return verdict_request(model, CHECK_SYSTEM, ask, max_tokens=2000)


def parse_violations(
    answer: str, rules: Sequence[RuleInForce], calls: Sequence[CheckedCall]
) -> list[Violation]:
    """The violations the answer names by a known rule id and call number; the rest ignored."""
    data = json_in(answer, "object")
    by_id = {r.id: r for r in rules}
    found: list[Violation] = []
    items = data.get("violations") if isinstance(data, dict) else None
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        rule, number = by_id.get(str(item.get("rule"))), item.get("call")
        if rule is None or not isinstance(number, int) or not 1 <= number <= len(calls):
            continue
        reason = " ".join(str(item.get("reason") or "").split()) or "no reason given"
        found.append(Violation(rule, calls[number - 1], reason))
    return found


# req: MR3
async def check_calls(
    client: ChatClient, model: str, rules: Sequence[RuleInForce], calls: Sequence[CheckedCall]
) -> list[Violation]:
    """One request; nothing to check (no rules or no calls) asks nothing."""
    if not rules or not calls:
        return []
    answer = await answer_of(client, check_request(model, rules, calls))
    return parse_violations(answer, rules, calls)


VIOLATIONS_FILE = "rule-violations.log"  # JSON lines; not `.jsonl`: that names sessions
NOTE_MAX = 20  # the fork sees at most this many recent violations


def save_violations(project_dir: Path, session: str, violations: Sequence[Violation]) -> None:
    """Append them to the project's log (the fork's evidence for feedback memories)."""
    if not violations:
        return
    log = project_dir / VIOLATIONS_FILE
    lines = "".join(json.dumps({"session": session, **v.to_json()}) + "\n" for v in violations)
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        with file_lock(log), log.open("a", encoding="utf-8") as out:
            out.write(lines)
    except OSError:
        pass


# req: MR3
def violation_note(project_dir: Path) -> str | None:
    """For the extraction fork: the latest rule violations the checks found, as evidence for
    feedback memories (a rule broken again and again may need clearer words)."""
    try:
        text = (project_dir / VIOLATIONS_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    lines: list[str] = []
    for raw in text.splitlines()[-NOTE_MAX:]:
        try:
            data = json.loads(raw)
            lines.append(f"- rule {data['rule']['id']} by {data['call']['tool']}: {data['reason']}")
        except (ValueError, KeyError, TypeError):
            continue
    if not lines:
        return None
    return (
        "Rule checks found these calls breaking the user's rules (newest last); a rule broken "
        "more than once may deserve a feedback memory on how to keep it:\n" + "\n".join(lines)
    )
