"""A destructive command (`rm`, `dd`, `mkfs`, `git push --force`, `git reset --hard`, `git clean`,
`chmod -R` …) is granted exactly as the user saw it, never by a prefix rule."""

from __future__ import annotations

from pathlib import Path

import pytest

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
