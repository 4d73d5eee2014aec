"""Rules: per-part matching of compound commands (X6), MCP names (MC5), WebFetch domains (WF4),
read-only tools from the table, `--allowedTools` lists (HL4), scoped session grants (UX2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.policy import PermissionPolicy, grant_label
from wave_tui.permissions.rules import parse_rule_list


@pytest.mark.req("X6")
@pytest.mark.parametrize(
    "command", ["echo hi; touch X", "echo hi && touch X", "echo hi | tee X", "echo hi\ntouch X",
                "echo $(touch X)", "(echo hi; touch X)", "echo hi > X"],
)  # fmt: skip
def test_x6_an_allow_rule_allows_only_when_every_part_is_allowed(
    project: Path, command: str
) -> None:
    policy = PermissionPolicy(project, allow=["Bash(echo *)"])
    assert policy.decide("Bash", {"command": command}).behavior == "ask"


@pytest.mark.req("X6")
def test_x6_every_part_allowed_by_some_rule_or_read_only(project: Path) -> None:
    policy = PermissionPolicy(project, allow=["Bash(echo *)", "Bash(npm run test:*)"])
    for command in ("echo hi", "echo a && echo b", "npm run test && ls", "npm run test -- -x"):
        assert policy.decide("Bash", {"command": command}).behavior == "allow", command
    assert policy.decide("Bash", {"command": "npm run testx"}).behavior == "ask"


@pytest.mark.req("X6")
@pytest.mark.parametrize(
    "command", ["true && rm X", "ls; rm X", "rm X", "echo $(rm X)", "(rm X)", "{ rm X; }",
                "FOO=1 rm X", "ls | xargs rm", "if true; then rm X; fi", "ls\nrm X", "'rm' X"],
)  # fmt: skip
def test_x6_a_deny_rule_denies_when_any_part_is_denied(project: Path, command: str) -> None:
    policy = PermissionPolicy(project, deny=["Bash(rm *)"], mode="bypassPermissions")
    assert policy.decide("Bash", {"command": command}).behavior == "deny"


@pytest.mark.req("MC5")
def test_mc5_mcp_rules_by_server_and_by_tool(project: Path) -> None:
    policy = PermissionPolicy(project, allow=["mcp__fs"], deny=["mcp__git__push"])
    assert policy.decide("mcp__fs__read", {}).behavior == "allow"
    assert policy.decide("mcp__fs__write", {}).behavior == "allow"
    assert policy.decide("mcp__fsx__read", {}).behavior == "ask"  # another server
    assert policy.decide("mcp__git__push", {}).behavior == "deny"
    assert policy.decide("mcp__git__status", {"readOnlyHint": True}).behavior == "ask"
    one = PermissionPolicy(project, allow=["mcp__git__status"])
    assert one.decide("mcp__git__status", {}).behavior == "allow"
    assert one.decide("mcp__git__log", {}).behavior == "ask"


@pytest.mark.req("WF4")
def test_wf4_webfetch_domain_rules_and_private_addresses(project: Path) -> None:
    policy = PermissionPolicy(
        project, allow=["WebFetch(domain:example.com)", "WebFetch(domain:localhost)"]
    )
    fetch = lambda url: policy.decide("WebFetch", {"url": url}).behavior  # noqa: E731
    assert fetch("https://example.com/a") == "allow"
    assert fetch("https://docs.example.com/a") == "allow"
    assert fetch("https://example.com.evil.net/") == "ask"
    assert fetch("https://notexample.com/") == "ask"
    assert (
        PermissionPolicy(project).decide("WebFetch", {"url": "https://example.com"}).behavior
        == "ask"
    )
    for private in (
        "http://localhost:8080/",
        "http://127.0.0.1/",
        "http://10.0.0.5/",
        "http://[::1]/",
    ):
        assert fetch(private) == "ask", private
    everything = PermissionPolicy(project, allow=["WebFetch"])
    assert everything.decide("WebFetch", {"url": "http://192.168.1.1/"}).behavior == "ask"


@pytest.mark.parametrize(
    "tool", ["Skill", "Task", "TaskCreate", "TaskList", "TaskStop", "AskUserQuestion",
             "EnterPlanMode", "ExitPlanMode", "BashOutput", "Agent"],
)  # fmt: skip
def test_tools_that_need_no_approval(project: Path, tool: str) -> None:
    assert PermissionPolicy(project).decide(tool, {}).behavior == "allow"


@pytest.mark.req("HL4")
def test_hl4_parse_rule_list() -> None:
    assert parse_rule_list("Read,Bash(git *)") == ["Read", "Bash(git *)"]
    assert parse_rule_list(" Read  Edit, Bash(npm run test:*) ,mcp__fs") == [
        "Read", "Edit", "Bash(npm run test:*)", "mcp__fs",
    ]  # fmt: skip
    assert parse_rule_list("Bash(echo a, b)") == ["Bash(echo a, b)"]
    assert parse_rule_list("") == []


@pytest.mark.req("UX2")
def test_ux2_a_session_grant_covers_the_folder_shown_not_every_write(
    project: Path, tmp_path: Path
) -> None:
    (project / "src" / "deep").mkdir(parents=True)
    (project / "docs").mkdir()
    policy = PermissionPolicy(project)
    args = {"file_path": "src/a.py"}
    assert (
        grant_label(AnalysedUse.of("Write", args, project), project)
        == "Always allow Write in src this session"
    )
    policy.grant_for_session("Write", args)
    assert policy.decide("Write", {"file_path": "src/b.py"}).behavior == "allow"
    assert policy.decide("Write", {"file_path": "src/deep/c.py"}).behavior == "allow"
    assert policy.decide("Write", {"file_path": "docs/x.md"}).behavior == "ask"
    assert policy.decide("Edit", {"file_path": "src/b.py"}).behavior == "ask"  # another tool
    assert policy.decide("Write", {"file_path": str(tmp_path / "x")}).behavior == "ask"
    assert policy.decide("Write", {"file_path": "src/../../x"}).behavior == "ask"


@pytest.mark.req("UX2")
def test_ux2_a_grant_outside_the_project_covers_only_that_file(
    project: Path, tmp_path: Path
) -> None:
    policy = PermissionPolicy(project)
    target = tmp_path / "outside" / "a.txt"
    label = grant_label(AnalysedUse.of("Write", {"file_path": str(target)}, project), project)
    assert label == f"Always allow Write to {target} this session"
    policy.grant_for_session("Write", {"file_path": str(target)})
    assert policy.decide("Write", {"file_path": str(target)}).behavior == "allow"
    assert policy.decide("Write", {"file_path": str(target.parent / "b.txt")}).behavior == "ask"


@pytest.mark.req("UX2")
def test_ux2_top_level_file_and_bash_labels(project: Path) -> None:
    assert grant_label(AnalysedUse.of("Write", {"file_path": "a.md"}, project), project) == (
        "Always allow Write in the project this session"
    )
    assert grant_label(AnalysedUse.of("Bash", {"command": "npm test"}, project), project) == (
        "Always allow Bash(npm test) this session"
    )
    policy = PermissionPolicy(project)
    policy.grant_for_session("Bash", {"command": "npm test"})
    assert policy.decide("Bash", {"command": "npm test"}).behavior == "allow"
    assert policy.decide("Bash", {"command": "npm test; rm -rf x"}).behavior == "ask"
    policy.grant_for_session("Bash", {})
    assert policy.decide("Bash", {"command": "make"}).behavior == "ask"


@pytest.mark.req("X5")
def test_x5_accept_edits_never_writes_into_git_folders(project: Path) -> None:
    policy = PermissionPolicy(project, mode="acceptEdits")
    assert policy.decide("Write", {"file_path": "notes.md"}).behavior == "allow"
    assert policy.decide("Write", {"file_path": ".git/config"}).behavior == "ask"
    assert policy.decide("Edit", {"file_path": "vendor/x/.git/hooks/pre-commit"}).behavior == "ask"
