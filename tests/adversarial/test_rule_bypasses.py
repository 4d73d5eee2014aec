"""Family 3: compound commands against allow and deny rules (X6). Each case is a real
`PermissionPolicy.decide`: an allow rule must not carry a second command through, and a deny rule
must catch its command wherever it sits in a compound."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adversarial.tally import figure
from wave_tui.permissions.policy import PermissionPolicy

# Under `allow: Bash(echo *)` none of these may be allowed: each smuggles in `touch X` (or worse).
ALLOW_BYPASSES = [
    "echo hi; touch X",
    "echo hi;touch X",
    "echo hi && touch X",
    "echo hi || touch X",
    "echo hi | tee X",
    "echo hi | sh",
    "echo hi\ntouch X",
    "echo hi\r\ntouch X",
    "echo $(touch X)",
    "echo `touch X`",
    'echo "$(touch X)"',
    "echo hi > X",
    "echo hi >> ~/.bashrc",
    "echo hi & touch X",
    "(echo hi; touch X)",
    "{ echo hi; touch X; }",
    "echo hi; (touch X)",
    "echo <(touch X)",
    "echo hi |& tee X",
    "echo ${X:=$(touch X)}",
    "echo hi; X=1 touch X",
    "echo hi; env touch X",
    "echo hi\x00; touch X",
    "echo hi #\ntouch X",
    "echo; touch X",
    "echo hi; echo; rm -rf ~",
    # found in this round: a read-only git next to the rule's command ran with no hardening
    "echo hi; git -C /tmp status",
    "echo hi | git -C .. log",
]
# Under `deny: Bash(rm *)` (and a broad `allow: Bash`), each of these must be denied.
DENY_BYPASSES = [
    "rm X",
    "true && rm X",
    "ls; rm X",
    "ls;rm X",
    "ls || rm X",
    "ls | rm X",
    "ls\nrm X",
    "ls & rm X",
    "(rm X)",
    "{ rm X; }",
    "echo $(rm X)",
    "echo `rm X`",
    'echo "$(rm X)"',
    "if true; then rm X; fi",
    "while false; do :; done; rm X",
    "X=1 rm X",
    "env rm X",
    "command rm X",
    "exec rm X",
    "nohup rm X",
    "sudo rm X",
    "time rm X",
    "! rm X",
    "ls | xargs rm",
    "  rm   X",
    "ls; 'rm' X",
    'ls; "rm" X',
    # found in this round: the program by path, ANSI-C quoting, wrappers with options, -exec, sh -c
    "ls; /bin/rm X",
    "ls && /usr/bin/rm -rf X",
    "./rm X",
    "$'rm' X",
    "find . -exec rm X ;",
    "find . -execdir rm {} +",
    "sh -c 'rm X'",
    "bash -lc 'rm X'",
    "sh -c \"sh -c 'rm X'\"",
    "sudo -u root rm X",
    "xargs -0 rm < list",
    "nice -n 5 rm X",
    "timeout 5 rm X",
    "env -i rm X",
    "command -p rm X",
    "eval 'ls; rm X'",
    "eval rm X",
]


def allow_attempt(command: str, workdir: Path) -> str | None:
    policy = PermissionPolicy(workdir, "default", allow=["Bash(echo *)"])
    decision = policy.decide("Bash", {"command": command})
    return f"allowed ({decision.reason})" if decision.behavior == "allow" else None


def deny_attempt(command: str, workdir: Path) -> str | None:
    policy = PermissionPolicy(workdir, "default", allow=["Bash"], deny=["Bash(rm *)"])
    decision = policy.decide("Bash", {"command": command})
    return None if decision.behavior == "deny" else f"{decision.behavior} ({decision.reason})"


@pytest.mark.req("X6")
@pytest.mark.parametrize("command", ALLOW_BYPASSES)
def test_x6_allow_rule_covers_only_its_own_command(command: str, project: Path) -> None:
    assert allow_attempt(command, project) is None


@pytest.mark.req("X6")
@pytest.mark.parametrize("command", DENY_BYPASSES)
def test_x6_deny_rule_catches_its_command_anywhere(command: str, project: Path) -> None:
    assert deny_attempt(command, project) is None


@pytest.mark.req("X6")
def test_x6_rule_bypass_figure(project: Path) -> None:
    """Family 3 figure: 0 rule bypasses."""
    outcomes = [(f"allow {c!r}", allow_attempt(c, project)) for c in ALLOW_BYPASSES]
    outcomes += [(f"deny {c!r}", deny_attempt(c, project)) for c in DENY_BYPASSES]
    handled, total, report = figure("rule bypasses", outcomes)
    assert handled == total, report


@pytest.mark.req("X6")
@pytest.mark.parametrize(
    "command", ["echo hi", "echo hi; echo there", "echo a && ls", "echo a | wc -l"]
)
def test_x6_allow_rule_still_allows_its_commands(command: str, project: Path) -> None:
    policy = PermissionPolicy(project, "default", allow=["Bash(echo *)"])
    assert policy.decide("Bash", {"command": command}).behavior == "allow"


@pytest.mark.req("X6")
@pytest.mark.parametrize("command", ["ls -la", "grep rm notes.txt", "git commit -m 'rm old'"])
def test_x6_deny_rule_does_not_catch_the_word_elsewhere(command: str, project: Path) -> None:
    policy = PermissionPolicy(project, "default", allow=["Bash"], deny=["Bash(rm *)"])
    assert policy.decide("Bash", {"command": command}).behavior == "allow"
