"""A destructive command (`rm`, `dd`, `mkfs`, `git push --force`, `git reset --hard`, `git clean`,
`chmod -R` …) is granted exactly as the user saw it, never by a prefix rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import chats, tool_results
from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.command_words import command_prefix
from wave_tui.permissions.policy import PermissionPolicy, grant_options

pytestmark = pytest.mark.req("FH15")


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "/bin/rm old.txt",
        "rmdir empty",
        "dd if=/dev/zero of=disk.img bs=1M",
        "mkfs /dev/sdb1",
        "mkfs.ext4 /dev/sdb1",
        "shred -u secrets.txt",
        "truncate -s 0 app.log",
        "chmod -R 777 src",
        "chown --recursive me src",
        "find . -name '*.pyc' -delete",
        "git push --force origin main",
        "git push -f origin main",
        "git push origin +main",
        "git reset --hard HEAD~3",
        "git clean -fdx",
        "git branch -D feature",
        "git checkout -- src",
        "git stash drop",
    ],
)
def test_a_destructive_command_has_no_prefix(command: str) -> None:
    assert command_prefix(command.split()) is None


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("git push origin main", "git push"),
        ("git reset HEAD~1", "git reset"),
        ("chmod +x run.sh", "chmod"),
        ("find . -name x", "find"),
        ("git branch new-feature", "git branch"),
        ("touch gone.txt", "touch"),
    ],
)
def test_their_harmless_siblings_keep_their_prefix(command: str, prefix: str) -> None:
    assert command_prefix(command.split()) == prefix.split()


def test_one_always_on_rm_and_touch_grants_that_rm_exactly(project: Path) -> None:
    command = "rm -rf build && touch gone.txt"
    call = AnalysedUse.of("Bash", {"command": command}, project)
    first = grant_options(call, project)[0]
    assert first.label == "Always allow Bash(rm -rf build) and Bash(touch:*) this session"
    policy = PermissionPolicy(project)
    policy.grant_for_session("Bash", {"command": command}, "prefix")
    assert [str(r) for r in policy.session_allow] == ["Bash(rm -rf build)", "Bash(touch:*)"]
    assert policy.decide("Bash", {"command": "rm -rf build"}).behavior == "allow"
    assert policy.decide("Bash", {"command": "touch other.txt"}).behavior == "allow"
    for later in ("rm -rf src", "rm -rf ~", "rm -rf build src"):
        assert policy.decide("Bash", {"command": later}).behavior == "ask", later


def test_a_force_push_is_granted_exactly(project: Path) -> None:
    policy = PermissionPolicy(project)
    policy.grant_for_session("Bash", {"command": "git push --force origin main"}, "prefix")
    assert [str(r) for r in policy.session_allow] == ["Bash(git push --force origin main)"]
    assert policy.decide("Bash", {"command": "git push --force origin dev"}).behavior == "ask"


@pytest.mark.parametrize(
    ("granted", "later"),
    [
        ("git push origin main", "git push --force origin main"),
        ("git push origin main", "git push origin :release"),
        ("git stash list", "git stash drop"),
        ("git reset HEAD file.txt", "git reset --hard HEAD~3"),
        ("git checkout main", "git checkout -- src"),
    ],
)
def test_a_prefix_granted_for_a_harmless_form_never_covers_its_destructive_form(
    project: Path, granted: str, later: str
) -> None:
    """What the user saw was the harmless form: the prefix grant it made (`Bash(git push:*)`)
    lets the harmless forms run, and the destructive one is asked about."""
    policy = PermissionPolicy(project)
    policy.grant_for_session("Bash", {"command": granted}, "prefix")
    assert [str(r) for r in policy.session_allow] == [
        f"Bash({granted.split()[0]} {granted.split()[1]}:*)"
    ]
    assert policy.decide("Bash", {"command": granted}).behavior == "allow"
    assert policy.decide("Bash", {"command": later}).behavior == "ask", later


def test_rules_that_name_the_destructive_form_still_allow_it_and_deny_rules_cover_it(
    project: Path,
) -> None:
    policy = PermissionPolicy(
        project,
        allow=["Bash(git push --force:*)", "Bash(rm:*)", "Bash(git stash:*)"],
        deny=["Bash(git stash:*)"],
    )
    assert policy.decide("Bash", {"command": "git push --force origin dev"}).behavior == "allow"
    assert policy.decide("Bash", {"command": "rm -rf build"}).behavior == "allow"
    assert policy.decide("Bash", {"command": "git stash drop"}).behavior == "deny"


def test_wave_p_allows_the_prefix_and_refuses_its_destructive_form(
    project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(
        tool_call("Bash", {"command": "git stash list"}),
        tool_call("Bash", {"command": "git stash drop"}),
        text("done"),
    )
    proc = run_wave(
        "-p", "tidy up", "--allowedTools", "Bash(git stash:*)", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    listed, dropped = (tool_results(chats(model_server)[i])[-1] for i in (1, 2))
    assert "Permission denied" not in listed  # the grant's own form ran
    assert dropped.startswith("Permission denied: Bash needs approval")
