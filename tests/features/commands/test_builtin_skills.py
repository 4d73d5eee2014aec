"""The built-in skills through `wave -p`: `/simplify` and `/code-review [effort]` reach the model
with their reviewers, whose parallel subagent requests are in the server's request log;
`/settings` names the three real settings files and writes through the permission policy; a
user skill of the same name replaces a built-in one; `/help` lists them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, text, tool_call, tool_calls
from tests.wave_cli import run_wave
from tests.wire_view import chats, is_child
from wave_tui.config.paths import WavePaths

GP = "general-purpose"


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.fixture
def repo(project: Path) -> Path:
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.email", "t@example.com"],
        ["config", "user.name", "T"],
    ):
        subprocess.run(["git", *args], cwd=project, check=True)
    (project / "app.py").write_text("def f(x):\n    return x\n")
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "init"], cwd=project, check=True)
    (project / "app.py").write_text("def f(x):\n    y = x\n    return y\n")
    return project


def children(server: ModelServer) -> list[str]:
    """The task each subagent request was given (its first user message)."""
    out = []
    for body in chats(server):
        if is_child(body):
            users = [m for m in body["messages"] if m["role"] == "user"]
            out.append(str(users[-1]["content"]))
    return out


def first_prompt(server: ModelServer) -> str:
    body = chats(server)[0]
    return str([m for m in body["messages"] if m["role"] == "user"][-1]["content"])


def agents(*names: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("Agent", {"description": n, "prompt": f"{n}: review the diff", "subagent_type": GP})
        for n in names
    ]


@pytest.mark.req("SK1")
def test_simplify_runs_three_reviewers_in_parallel_then_fixes(
    model_server: ModelServer, repo: Path
) -> None:
    reviewers = ("Code Reuse Review", "Code Quality Review", "Efficiency Review")
    for name in reviewers:
        model_server.enqueue(
            text(f"{name}: inline y"), when=lambda b, n=name: is_child(b) and n in json.dumps(b)
        )
    model_server.enqueue(tool_calls(agents(*reviewers)), when=lambda b: not is_child(b))
    model_server.enqueue(text("Simplified app.py."), when=lambda b: not is_child(b))
    proc = run_wave(
        "-p", "/simplify", "--permission-mode", "bypassPermissions", cwd=repo, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    prompt = first_prompt(model_server)
    assert "git diff" in prompt and "call the Agent tool three times" in prompt
    assert all(f"**{name}**" in prompt for name in reviewers)
    assert sorted(c.split(":")[0] for c in children(model_server)) == sorted(reviewers)
    final = chats(model_server)[-1]
    results = [m["content"] for m in final["messages"] if m["role"] == "tool"]
    assert [r.split(":")[0] for r in results] == list(reviewers)


@pytest.mark.req("SK2")
@pytest.mark.parametrize(
    ("effort", "count", "threshold"),
    [("low", 2, 90), ("", 3, 80), ("high", 4, 70), ("max", 5, 60)],
)
def test_code_review_reviewers_and_threshold_by_effort(
    model_server: ModelServer, repo: Path, effort: str, count: int, threshold: int
) -> None:
    all_reviewers = [
        "Bug scan",
        "AGENTS.md audit",
        "Git history",
        "Reuse and quality",
        "Efficiency",
    ]
    chosen = all_reviewers[:count]
    model_server.enqueue(text("no findings"), when=is_child)
    model_server.enqueue(tool_calls(agents(*chosen)), when=lambda b: not is_child(b))
    model_server.enqueue(text("No findings over the threshold."), when=lambda b: not is_child(b))
    proc = run_wave(
        "-p", f"/code-review {effort}".strip(), "--permission-mode", "bypassPermissions",
        cwd=repo, server=model_server,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    prompt = first_prompt(model_server)
    assert f"Launch {count} reviewers in parallel" in prompt
    assert f"Confidence threshold: {threshold}" in prompt
    assert all(f"**{r}**" in prompt.split("(only these)")[0] for r in chosen)
    assert "gh pr comment" in prompt and "glab mr note" in prompt
    assert len(children(model_server)) == count


@pytest.mark.req("SK2")
def test_code_review_unknown_effort_is_one_line(model_server: ModelServer, repo: Path) -> None:
    proc = run_wave("-p", "/code-review extreme", cwd=repo, server=model_server)
    assert proc.returncode == 1
    assert "unknown effort 'extreme': use low, medium, high or max" in proc.stderr
    assert chats(model_server) == []


@pytest.mark.req("SK3")
def test_settings_names_the_three_files_and_writes_through_the_policy(
    model_server: ModelServer, repo: Path
) -> None:
    paths = WavePaths.for_workdir(repo)
    local = paths.local_settings
    model_server.enqueue(
        tool_call("Write", {"file_path": str(local), "content": '{"language": "French"}\n'}),
        text("Asked to write."),
    )
    proc = run_wave(
        "-p", "/settings answer in French on this machine", cwd=repo, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    prompt = first_prompt(model_server)
    for path in (paths.user_settings, paths.project_settings, local):
        assert str(path) in prompt
    assert "answer in French on this machine" in prompt and "`language`" in prompt
    # -p asks nobody: the write is refused by the permission policy, nothing written.
    result = [m for m in chats(model_server)[-1]["messages"] if m["role"] == "tool"][-1]
    assert str(result["content"]).startswith("Permission denied:")
    assert not local.exists()
    model_server.enqueue(
        tool_call("Write", {"file_path": str(local), "content": '{"language": "French"}\n'}),
        text("Done."),
    )
    proc = run_wave(
        "-p", "/settings answer in French", "--permission-mode", "acceptEdits",
        cwd=repo, server=model_server,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(local.read_text()) == {"language": "French"}


@pytest.mark.req("SK1")
def test_a_user_skill_replaces_the_builtin_and_help_lists_them(
    model_server: ModelServer, repo: Path, isolated_home: Path
) -> None:
    helped = run_wave("-p", "/help", cwd=repo, server=model_server)
    assert helped.returncode == 0, helped.stderr
    for name in ("/simplify", "/code-review", "/settings"):
        assert name in helped.stdout
    folder = isolated_home / ".wave" / "skills" / "simplify"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\ndescription: mine\n---\nMY-OWN-SIMPLIFY\n")
    model_server.enqueue(text("ok"))
    proc = run_wave("-p", "/simplify", cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    prompt = first_prompt(model_server)
    assert "MY-OWN-SIMPLIFY" in prompt and "Code Reuse Review" not in prompt
