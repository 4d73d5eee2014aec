"""Bash's "always" choices (CV10): the prefix rule `Bash(<first words>:*)` chosen as Claude Code
chooses it, the prefix rules of a compound command's parts, none where the command cannot be
split with certainty, and an exact grant that is the text shown, never a glob."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.command_words import command_prefix
from wave_tui.permissions.policy import PermissionPolicy, grant_options


@pytest.mark.req("CV10")
@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("git commit -m x", "git commit"),
        ("git push origin main", "git push"),
        ("npm run test -- --watch", "npm run test"),
        ("npm test --coverage", "npm test"),
        ("uv run pytest -x", "uv run pytest"),
        ("gh pr create --fill", "gh pr create"),
        ("docker compose up -d", "docker compose up"),
        ("cargo build --release", "cargo build"),
        ("npx prettier --write .", "npx prettier"),
        ("python -m pytest tests", "python -m pytest"),
        ("python3 build.py --fast", "python3 build.py"),
        ("pytest tests/test_x.py", "pytest"),
        ("make test", "make"),
        ("/usr/bin/git log -1", "/usr/bin/git log"),
    ],
)
def test_cv10_the_prefix_is_the_program_and_its_subcommand(command: str, prefix: str) -> None:
    assert command_prefix(command.split()) == prefix.split()


@pytest.mark.req("CV10")
@pytest.mark.parametrize(
    "command",
    [
        "npm test",  # the whole command: only the exact grant
        "git status",
        "make",
        "git -C ../other status",  # an option where the subcommand goes
        "git --version",
        "python -c print(1)",
        "FOO=1 make build",  # an assignment changes what runs
        "sudo rm -rf build",  # wrappers and shells run anything after them
        "env A=1 make",
        "bash -c ls",
        "xargs rm",
        "eval ls",
    ],
)
def test_cv10_no_prefix_that_would_allow_anything(command: str) -> None:
    assert command_prefix(command.split()) is None


def labels(command: str, project: Path) -> list[tuple[str, str]]:
    return [
        (o.kind, o.label)
        for o in grant_options(AnalysedUse.of("Bash", {"command": command}, project), project)
    ]


@pytest.mark.req("CV10")
def test_cv10_a_simple_command_offers_its_prefix_then_itself(project: Path) -> None:
    assert labels("git commit -m x", project) == [
        ("prefix", "Always allow Bash(git commit:*) this session"),
        ("scope", "Always allow Bash(git commit -m x) this session"),
    ]
    assert labels("npm test", project) == [("scope", "Always allow Bash(npm test) this session")]
    long = "git commit -m '" + "a long message " * 5 + "'"
    assert labels(long, project)[1] == ("scope", "Always allow this exact command this session")


@pytest.mark.req("CV10")
def test_cv10_a_compound_command_offers_the_prefixes_of_its_parts(project: Path) -> None:
    policy = PermissionPolicy(project)
    command = "git add src && git commit -m one"
    assert labels(command, project)[0] == (
        "prefix",
        "Always allow Bash(git add:*) and Bash(git commit:*) this session",
    )
    policy.grant_for_session("Bash", {"command": command}, "prefix")
    assert [str(r) for r in policy.session_allow] == ["Bash(git add:*)", "Bash(git commit:*)"]
    assert policy.decide("Bash", {"command": "git commit -m two"}).behavior == "allow"
    assert policy.decide("Bash", {"command": "git add . ; git commit --amend"}).behavior == "allow"
    assert policy.decide("Bash", {"command": "git add . && rm -rf /"}).behavior == "ask"
    assert policy.decide("Bash", {"command": "git push"}).behavior == "ask"


@pytest.mark.req("CV10")
def test_cv10_read_only_parts_need_no_rule_and_unsplittable_commands_get_no_prefix(
    project: Path,
) -> None:
    assert labels("ls src && git commit -m x", project)[0] == (
        "prefix",
        "Always allow Bash(git commit:*) this session",
    )
    for unsure in ("git commit -m $(cat msg)", "make > out.log", "(cd x && make build)"):
        assert [kind for kind, _ in labels(unsure, project)] == ["scope"], unsure
    # A part without a prefix of its own is granted as it was shown, next to the others'.
    assert labels("npm test && git push origin", project)[0] == (
        "prefix",
        "Always allow Bash(npm test) and Bash(git push:*) this session",
    )


@pytest.mark.req("CV10")
def test_cv10_the_exact_grant_is_the_text_shown_not_a_glob(project: Path) -> None:
    policy = PermissionPolicy(project)
    policy.grant_for_session("Bash", {"command": "rm -rf build/cache*"})
    assert policy.decide("Bash", {"command": "rm -rf build/cache*"}).behavior == "allow"
    assert policy.decide("Bash", {"command": "rm -rf build/cache/../../../home"}).behavior == "ask"
    policy.grant_for_session("Bash", {"command": "*"})
    assert policy.decide("Bash", {"command": "make"}).behavior == "ask"
