"""Worktrees through `wave -p` in real git repositories: EnterWorktree / ExitWorktree scripted
by the model server, Bash and nested memory in the worktree, the three hooks as real scripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.hook_helpers import configure, script
from tests.git_repos import committed_repo, git
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import chats, tool_results
from wave_tui.config.paths import WavePaths

BYPASS = ("--permission-mode", "bypassPermissions")


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files = {
        "README.md": "hello\n",
        "AGENTS.md": "- committed project memory: ROOT-COMMITTED\n",
        ".wave/rules/style.md": "Committed rule: RULE-COMMITTED\n",
        "pkg/AGENTS.md": "- nested rule of the worktree copy: WT-NESTED\n",
        "pkg/mod.py": "x = 1\n",
    }
    return committed_repo(tmp_path / "repo", files)


def last_results(server: ModelServer) -> list[str]:
    return tool_results(chats(server)[-1])


def worktrees(repo: Path) -> str:
    return git(repo, "worktree", "list", "--porcelain")


@pytest.mark.req("WT1")
@pytest.mark.req("WT4")
def test_enter_runs_bash_and_reads_in_the_worktree_then_remove(
    model_server: ModelServer, repo: Path
) -> None:
    wt = repo / ".wave" / "worktrees" / "feat"
    # The main checkout's own uncommitted memory is not the worktree's.
    (repo / "AGENTS.md").write_text("- main checkout only: MAIN-ONLY\n")
    (repo / ".wave" / "rules" / "style.md").write_text("Main rule: RULE-MAIN\n")
    model_server.enqueue(
        tool_call("EnterWorktree", {"name": "feat"}),
        tool_call("Bash", {"command": "pwd; git branch --show-current"}),
        tool_call("Read", {"file_path": "pkg/mod.py"}),
        tool_call("ExitWorktree", {"action": "remove"}),
        text("done"),
    )
    proc = run_wave("-p", "work in a worktree", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    bodies = chats(model_server)
    entered = tool_results(bodies[1])[-1]
    assert "Created worktree feat" in entered and str(wt) in entered
    pwd, branch = tool_results(bodies[2])[-1].splitlines()[:2]
    assert Path(pwd).resolve() == wt.resolve() and branch == "wave/feat"
    # The relative Read resolved against the worktree, and its nested AGENTS.md loaded.
    read_body = json.dumps(bodies[3]["messages"])
    assert "WT-NESTED" in read_body and str(wt / "pkg" / "AGENTS.md") in read_body
    first, inside = json.dumps(bodies[0]["messages"]), json.dumps(bodies[2]["messages"])
    assert "MAIN-ONLY" in first and "RULE-MAIN" in first
    # In the worktree, AGENTS.md and the rules are the worktree's (the reminder is rebuilt).
    assert "ROOT-COMMITTED" in inside and "RULE-COMMITTED" in inside
    assert "MAIN-ONLY" not in inside and "RULE-MAIN" not in inside
    # The worktree is in the dynamic system block while the session is in it.
    assert "git worktree `feat`" in json.dumps(bodies[2]["messages"][0])
    removed = tool_results(bodies[4])[-1]
    assert "Removed worktree feat" in removed and str(repo) in removed
    assert not wt.exists() and str(wt) not in worktrees(repo)
    assert "wave/feat" not in git(repo, "branch", "--list")
    # Back in the main checkout: the last request no longer names the worktree.
    assert "git worktree `feat`" not in json.dumps(bodies[4]["messages"][0])


@pytest.mark.req("WT5")
def test_remove_refuses_uncommitted_work_unless_discarded(
    model_server: ModelServer, repo: Path
) -> None:
    wt = repo / ".wave" / "worktrees" / "dirty"
    model_server.enqueue(
        tool_call("EnterWorktree", {"name": "dirty"}),
        tool_call("Bash", {"command": "echo new > untracked.txt"}),
        tool_call("ExitWorktree", {"action": "remove"}),
        tool_call("Bash", {"command": "pwd"}),
        tool_call("ExitWorktree", {"action": "remove", "discard_changes": True}),
        text("done"),
    )
    proc = run_wave("-p", "try", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    bodies = chats(model_server)
    refused = tool_results(bodies[3])[-1]
    assert "uncommitted work" in refused and "untracked.txt" in refused
    # Still in the worktree after the refusal, the file untouched.
    assert Path(tool_results(bodies[4])[-1].strip()).resolve() == wt.resolve()
    assert "Removed worktree dirty" in tool_results(bodies[5])[-1]
    assert not wt.exists()


@pytest.mark.req("WT1")
def test_keep_leaves_the_worktree_and_session_returns(
    model_server: ModelServer, repo: Path
) -> None:
    model_server.enqueue(
        tool_call("EnterWorktree", {"name": "kept"}),
        tool_call("ExitWorktree", {"action": "keep"}),
        tool_call("Bash", {"command": "pwd"}),
        text("done"),
    )
    proc = run_wave("-p", "try", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert Path(last_results(model_server)[-1].strip()) == repo
    assert (repo / ".wave" / "worktrees" / "kept").is_dir()
    assert "wave/kept" in git(repo, "branch", "--list")
    # The main checkout's status stays clean: the worktrees folder ignores itself.
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.req("WT1")
def test_wave_worktree_option_starts_in_one_and_auto_memory_stays_shared(
    model_server: ModelServer, repo: Path
) -> None:
    model_server.enqueue(tool_call("Bash", {"command": "pwd"}), text("ok"))
    proc = run_wave(
        "-p", "where", "--worktree", "cli", "--output-format", "json", *BYPASS,
        cwd=repo, server=model_server,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    wt = repo / ".wave" / "worktrees" / "cli"
    assert Path(last_results(model_server)[-1].strip()) == wt
    session = json.loads(proc.stdout)["session_id"]
    # The transcript (and auto memory beside it) is the main repository's project folder.
    assert (WavePaths.for_workdir(repo).project_dir / f"{session}.jsonl").is_file()
    assert WavePaths.for_workdir(wt).project_dir == WavePaths.for_workdir(repo).project_dir
    # A second run goes back into the worktree it made.
    model_server.enqueue(tool_call("Bash", {"command": "pwd"}), text("ok"))
    again = run_wave("-p", "where", "--worktree", "cli", *BYPASS, cwd=repo, server=model_server)
    assert again.returncode == 0, again.stderr
    assert Path(last_results(model_server)[-1].strip()) == wt


@pytest.mark.req("FH2")
def test_a_shell_command_of_wave_p_runs_in_the_worktree_without_the_model(
    model_server: ModelServer, repo: Path
) -> None:
    proc = run_wave("-p", "!pwd", "--worktree", "cli", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip().splitlines()[-1]) == repo / ".wave" / "worktrees" / "cli"
    assert not chats(model_server)


@pytest.mark.req("FH2")
def test_a_worktree_that_cannot_be_made_ends_wave_p_with_one_line(
    model_server: ModelServer, project: Path
) -> None:
    proc = run_wave("-p", "!pwd", "--worktree", "x", *BYPASS, cwd=project, server=model_server)
    assert proc.returncode == 1
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("wave: --worktree x: not a git repository")
    assert proc.stdout == "" and not chats(model_server)


@pytest.mark.req("WT2")
def test_base_ref_fresh_uses_origin_default_branch_and_head_uses_local_head(
    model_server: ModelServer, repo: Path, tmp_path: Path
) -> None:
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "fetch", "-q", "origin")
    git(repo, "remote", "set-head", "origin", "main")
    origin_commit = git(repo, "rev-parse", "HEAD").strip()
    (repo / "local.txt").write_text("unpushed\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "local only")
    local_commit = git(repo, "rev-parse", "HEAD").strip()
    model_server.enqueue(tool_call("EnterWorktree", {"name": "fresh1"}), text("ok"))
    proc = run_wave("-p", "go", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "(from origin/main)" in last_results(model_server)[-1]
    assert git(repo, "rev-parse", "wave/fresh1").strip() == origin_commit
    settings = repo / ".wave" / "settings.local.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"worktree": {"baseRef": "head"}}))
    model_server.enqueue(tool_call("EnterWorktree", {"name": "head1"}), text("ok"))
    proc = run_wave("-p", "go", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "(from HEAD)" in last_results(model_server)[-1]
    assert git(repo, "rev-parse", "wave/head1").strip() == local_commit
    settings.write_text(json.dumps({"worktree": {"baseRef": "tip"}}))
    model_server.enqueue(tool_call("EnterWorktree", {"name": "bad1"}), text("ok"))
    proc = run_wave("-p", "go", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "worktree.baseRef 'tip' is not fresh or head; using fresh" in proc.stderr
    assert "(from origin/main)" in last_results(model_server)[-1]


@pytest.mark.req("WT1")
@pytest.mark.parametrize("name", ["a/b", "..", "has space", "../up"])
def test_bad_names_are_one_line_and_leave_nothing(
    model_server: ModelServer, repo: Path, name: str
) -> None:
    model_server.enqueue(tool_call("EnterWorktree", {"name": name}), text("ok"))
    proc = run_wave("-p", "go", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (result,) = last_results(model_server)
    assert result.startswith("invalid worktree name") and "\n" not in result.strip()
    assert not (repo / ".wave" / "worktrees").exists()
    assert git(repo, "branch", "--list").strip() == "* main"


@pytest.mark.req("WT1")
@pytest.mark.parametrize("name", ["a/b", "..", "has space"])
def test_a_bad_worktree_option_is_a_usage_error_before_anything_starts(
    model_server: ModelServer, repo: Path, name: str
) -> None:
    proc = run_wave("-p", "go", "--worktree", name, cwd=repo, server=model_server)
    assert proc.returncode == 2
    assert proc.stderr.startswith("wave: invalid worktree name") and proc.stderr.count("\n") == 1
    assert not model_server.requests and not (repo / ".wave" / "worktrees").exists()


@pytest.mark.req("WT1")
def test_not_a_git_repository(model_server: ModelServer, project: Path) -> None:
    model_server.enqueue(tool_call("EnterWorktree", {"name": "x"}), text("ok"))
    proc = run_wave("-p", "go", *BYPASS, cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (result,) = last_results(model_server)
    assert result.startswith("not a git repository") and not (project / ".wave").exists()
    bad = run_wave("-p", "go", "--worktree", "x", *BYPASS, cwd=project, server=model_server)
    assert bad.returncode != 0 and "--worktree x: not a git repository" in bad.stderr
    assert not (project / ".wave").exists()


@pytest.mark.req("WT1")
def test_a_repository_without_commits_is_one_line(model_server: ModelServer, project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    model_server.enqueue(tool_call("EnterWorktree", {"name": "x"}), text("ok"))
    proc = run_wave("-p", "go", *BYPASS, cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (result,) = last_results(model_server)
    assert result == "no commit to start a worktree from (HEAD): commit something first"
    assert not (project / ".wave").exists()


@pytest.mark.req("WT3")
def test_worktree_create_hook_replaces_git_and_remove_and_cwd_hooks_run(
    model_server: ModelServer, repo: Path, tmp_path: Path, isolated_home: Path
) -> None:
    made = tmp_path / "made-by-hook"
    log = tmp_path / "hooks.log"
    create = script(
        tmp_path,
        "create.sh",
        f'cat > "{tmp_path}/create.json"\nmkdir -p "{made}"\necho "{made}"\n',
    )
    remove = script(
        tmp_path,
        "remove.sh",
        f'cat > "{tmp_path}/remove.json"\nls "{made}" >> "{log}"\nrm -rf "{made}"\n',
    )
    cwd = script(tmp_path, "cwd.sh", f'cat >> "{log}"\necho >> "{log}"\n')
    user = isolated_home / ".wave" / "settings.json"
    configure(user, "WorktreeCreate", str(create))
    configure(user, "WorktreeRemove", str(remove))
    configure(user, "CwdChanged", str(cwd))
    model_server.enqueue(
        tool_call("EnterWorktree", {"name": "hooked"}),
        tool_call("Bash", {"command": "pwd && touch inside.txt"}),
        tool_call("ExitWorktree", {"action": "remove"}),
        text("done"),
    )
    proc = run_wave("-p", "go", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    bodies = chats(model_server)
    assert Path(tool_results(bodies[2])[-1].strip()) == made.resolve()
    created = json.loads((tmp_path / "create.json").read_text())
    assert created["hook_event_name"] == "WorktreeCreate"
    assert created["name"] == "hooked" and created["base_ref"] == "fresh"
    assert created["repo_root"] == str(repo)
    removed = json.loads((tmp_path / "remove.json").read_text())
    assert removed["name"] == "hooked" and removed["worktree_path"] == str(made.resolve())
    # git made no worktree; the remove hook ran before the folder went (it listed the file).
    assert not (repo / ".wave" / "worktrees").exists() and not made.exists()
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
    assert [(x["old_cwd"], x["new_cwd"]) for x in lines] == [
        (str(repo), str(made.resolve())),
        (str(made.resolve()), str(repo)),
    ]
    assert "inside.txt" in log.read_text()


@pytest.mark.req("WT3")
def test_worktree_create_hook_without_a_path_blocks_the_creation(
    model_server: ModelServer, repo: Path, tmp_path: Path, isolated_home: Path
) -> None:
    failing = script(tmp_path, "fail.sh", "echo nope >&2\nexit 1\n")
    configure(isolated_home / ".wave" / "settings.json", "WorktreeCreate", str(failing))
    model_server.enqueue(tool_call("EnterWorktree", {"name": "x"}), text("ok"))
    proc = run_wave("-p", "go", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (result,) = last_results(model_server)
    assert "no WorktreeCreate hook gave a worktree path" in result
    assert not (repo / ".wave" / "worktrees").exists()


@pytest.mark.req("WT4")
def test_a_subagent_works_in_the_worktree_and_cannot_move_the_session(
    model_server: ModelServer, repo: Path
) -> None:
    def child(body: dict[str, Any]) -> bool:
        return "You are a subagent" in json.dumps(body["messages"][0])

    model_server.enqueue(tool_call("Bash", {"command": "pwd"}), when=child)
    model_server.enqueue(text("child done"), when=child)
    model_server.enqueue(tool_call("EnterWorktree", {"name": "sub"}), when=lambda b: not child(b))
    model_server.enqueue(
        tool_call(
            "Agent", {"description": "d", "prompt": "where", "subagent_type": "general-purpose"}
        ),
        when=lambda b: not child(b),
    )
    model_server.enqueue(text("ok"), when=lambda b: not child(b))
    proc = run_wave("-p", "go", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    kids = [b for b in chats(model_server) if child(b)]
    assert Path(tool_results(kids[-1])[-1].strip()) == repo / ".wave" / "worktrees" / "sub"
    offered = {t["function"]["name"] for t in kids[0]["tools"]}
    assert "Bash" in offered
    assert offered.isdisjoint({"EnterWorktree", "ExitWorktree", "CronCreate", "CronList"})
