"""Custom slash commands and skills through `wave -p`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import static_block


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def last_user(server: ModelServer) -> str:
    users = [m for m in server.requests[0].body["messages"] if m["role"] == "user"]
    return str(users[-1]["content"])


@pytest.mark.req("CS1", "CS2", "CS3")
def test_cs2_command_body_with_arguments_and_positional_words(
    model_server: ModelServer, project: Path
) -> None:
    """CS1, CS2, CS3: `git/commit.md` is `/git:commit`; `$ARGUMENTS`, `$1`, `$2` replaced."""
    write(
        project / ".wave" / "commands" / "git" / "commit.md",
        "---\ndescription: Commit with a message\nargument-hint: TYPE MESSAGE\n---\n"
        "Make a $1 commit: $ARGUMENTS (second word: $2)\n",
    )
    model_server.enqueue(text("committed"))
    proc = run_wave("-p", "/git:commit fix 'the parser'", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "committed\n"
    assert "Make a fix commit: fix 'the parser' (second word: the parser)" in last_user(
        model_server
    )


@pytest.mark.req("CS1")
def test_cs1_project_beats_user_and_wave_beats_claude(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    write(isolated_home / ".wave" / "commands" / "hello.md", "USER WAVE")
    write(project / ".claude" / "commands" / "hello.md", "PROJECT CLAUDE")
    write(isolated_home / ".claude" / "commands" / "bye.md", "USER CLAUDE BYE")
    write(isolated_home / ".wave" / "commands" / "bye.md", "USER WAVE BYE")
    model_server.enqueue(text("a"), text("b"))
    assert run_wave("-p", "/hello", cwd=project, server=model_server).returncode == 0
    assert "PROJECT CLAUDE" in last_user(model_server)
    write(project / ".wave" / "commands" / "hello.md", "PROJECT WAVE")
    model_server.reset()
    model_server.enqueue(text("a"), text("b"))
    assert run_wave("-p", "/hello", cwd=project, server=model_server).returncode == 0
    assert "PROJECT WAVE" in last_user(model_server)
    model_server.reset()
    model_server.enqueue(text("c"))
    assert run_wave("-p", "/bye", cwd=project, server=model_server).returncode == 0
    assert "USER WAVE BYE" in last_user(model_server)


@pytest.mark.req("CS2")
def test_cs2_allowed_tools_are_granted_for_that_command_only(
    model_server: ModelServer, project: Path
) -> None:
    write(
        project / ".wave" / "commands" / "mk.md",
        "---\nallowed-tools: Bash(touch *)\nmodel: smart\n---\nCreate $ARGUMENTS\n",
    )
    model_server.enqueue(tool_call("Bash", {"command": "touch one.txt"}), text("made"))
    proc = run_wave("-p", "/mk one.txt", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert (project / "one.txt").exists()
    assert model_server.requests[0].body["model"] == "smart"
    model_server.enqueue(tool_call("Bash", {"command": "touch two.txt"}), text("refused"))
    proc = run_wave("-p", "make two.txt", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert not (project / "two.txt").exists()  # a plain prompt gets no grant
    assert model_server.requests[-2].body["model"] == "test-model"


@pytest.mark.req("CS4", "CS5")
def test_cs4_skills_listed_by_name_and_description_only(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """CS4, CS5: the model sees names + descriptions (not bodies); hidden skills are not listed."""
    write(
        project / ".wave" / "skills" / "deploy" / "SKILL.md",
        "---\nname: deploy\ndescription: Deploy the service to an environment\n---\n"
        "SECRET-BODY run ./deploy.sh $ARGUMENTS\n",
    )
    write(
        isolated_home / ".claude" / "skills" / "wipe" / "SKILL.md",
        "---\nname: wipe\ndescription: Wipe caches\ndisable-model-invocation: true\n---\nWIPE\n",
    )
    write(project / ".wave" / "skills" / "deploy" / "deploy.sh", "echo deploying\n")
    model_server.enqueue(tool_call("Skill", {"skill": "deploy", "args": "prod"}), text("deployed"))
    proc = run_wave("-p", "ship it", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    first, second = model_server.requests
    system = json.dumps(first.body["messages"][0])
    assert "deploy: Deploy the service to an environment" in system
    assert "SECRET-BODY" not in json.dumps(first.body) and "wipe" not in system
    assert "Skill" in [t["function"]["name"] for t in first.body["tools"]]
    result = second.body["messages"][-1]
    assert result["role"] == "tool"
    assert "SECRET-BODY run ./deploy.sh prod" in result["content"]
    assert str((project / ".wave" / "skills" / "deploy").resolve()) in result["content"]
    static = static_block(first.body)
    assert "deploy" not in static  # the static block stays byte-stable


@pytest.mark.req("CS5")
def test_cs5_the_user_runs_a_hidden_skill_and_the_model_cannot(
    model_server: ModelServer, project: Path
) -> None:
    write(
        project / ".wave" / "skills" / "wipe" / "SKILL.md",
        "---\nname: wipe\ndescription: Wipe caches\ndisable-model-invocation: true\n---\n"
        "Wipe the $ARGUMENTS cache\n",
    )
    model_server.enqueue(text("wiped"))
    proc = run_wave("-p", "/wipe build", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "Wipe the build cache" in last_user(model_server)
    # The model is offered the Skill tool for the built-in skills it may call, never `wipe`.
    body = model_server.requests[0].body
    (skill,) = [t["function"] for t in body["tools"] if t["function"]["name"] == "Skill"]
    assert "wipe" not in json.dumps(skill) and "- wipe" not in json.dumps(body["messages"])


@pytest.mark.req("CS6")
def test_cs6_bad_frontmatter_is_one_line(model_server: ModelServer, project: Path) -> None:
    write(project / ".wave" / "commands" / "bad.md", "---\ndescription: [unclosed\n---\nBody\n")
    model_server.enqueue(text("ok"))
    proc = run_wave("-p", "/bad", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    lines = [x for x in proc.stderr.splitlines() if "bad.md" in x]
    assert len(lines) == 1 and "invalid YAML" in lines[0]
    assert "Traceback" not in proc.stderr
