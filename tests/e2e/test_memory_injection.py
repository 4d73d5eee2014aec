"""Memory sources reach the model exactly as I1–I2, R1–R10, D1–D7 say (black box, `wave -p`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call, tool_calls
from tests.wave_cli import run_wave
from tests.wire_view import parts, segments, texts

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("D7")


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def transcript_lines(home: Path) -> list[dict]:
    (path,) = (home / ".wave" / "projects").glob("*/*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.req("I1", "M2", "PV6", "R1", "R2", "R8")
def test_agents_md_user_memory_and_unconditional_rules_are_one_transient_reminder(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """I1, R1, R2, M2: one <system-reminder> first, not in the system prompt, not persisted."""
    write(project / "AGENTS.md", "Always use pnpm.\n")
    write(isolated_home / ".wave" / "AGENTS.md", "My name is Alice.\n")
    write(project / ".wave" / "rules" / "style.md", "Use tabs for indentation.\n")
    write(project / ".wave" / "rules" / "testing.md", "---\npriority: 5\n---\nRun pytest -q.\n")
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    messages = model_server.requests[0].body["messages"]
    assert messages[1]["role"] == "user"
    reminder = parts(messages[1])[0]  # the first part of the first user turn (PV6)
    assert reminder.startswith("<system-reminder>")
    assert reminder.rstrip().endswith("</system-reminder>")
    for needle in ("Always use pnpm.", "My name is Alice.", "Use tabs", "Run pytest -q."):
        assert needle in reminder
    # priority orders rules: higher first (R8)
    assert reminder.index("Run pytest -q.") < reminder.index("Use tabs")
    assert parts(messages[1])[1:] == ["hi"] and len(messages) == 2
    system_text = json.dumps(messages[0])
    assert "Always use pnpm." not in system_text and "Use tabs" not in system_text
    persisted = json.dumps(transcript_lines(isolated_home))
    assert "Always use pnpm." not in persisted and "My name is Alice." not in persisted


@pytest.mark.req("I2", "PV6", "R3", "R4")
def test_conditional_rule_is_injected_once_after_the_tool_results_and_persisted_as_meta(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """R3, R4, I2: after the Read of src/api/user.ts, once; never for src/ui/Button.tsx."""
    write(
        project / ".wave" / "rules" / "api.md",
        "---\npaths: src/api/**/*.ts\n---\nAPI handlers must validate input with zod.\n",
    )
    write(project / "src" / "api" / "user.ts", "export const user = 1;\n")
    write(project / "src" / "api" / "v2" / "order.ts", "export const order = 1;\n")
    write(project / "src" / "ui" / "Button.tsx", "export const Button = 1;\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "src/ui/Button.tsx"}),
        tool_calls(
            [
                tool_call("Read", {"file_path": "src/api/user.ts"}),
                tool_call("Glob", {"pattern": "**/*.ts"}),
            ]
        ),
        tool_call("Read", {"file_path": "src/api/v2/order.ts"}),
        text("done"),
    )
    proc = run_wave("-p", "look around", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    after_button = model_server.requests[1].body["messages"]
    assert "zod" not in json.dumps(after_button)
    after_user = model_server.requests[2].body["messages"]
    # after ALL results: folded into the last one on the wire (PV6)
    assert [m["role"] for m in after_user[-3:]] == ["assistant", "tool", "tool"]
    assert len(segments(after_user[-2])) == 1
    _result, rule_msg = segments(after_user[-1])
    assert rule_msg.startswith("<!-- rule: api.md -->")
    assert "<system-reminder>" in rule_msg and "zod" in rule_msg
    final = model_server.requests[3].body["messages"]
    assert sum("zod" in json.dumps(m) for m in final) == 1  # once, not again for order.ts
    lines = transcript_lines(isolated_home)
    metas = [m for m in lines if m.get("isMeta")]
    assert len(metas) == 1 and metas[0]["meta"]["ruleId"] == "api.md"


@pytest.mark.req("R6", "R9")
def test_braces_and_block_scalar_paths(model_server: ModelServer, project: Path) -> None:
    """R6, R9: `{src,lib}/**/*.ts` and a `paths: >-` block scalar both activate."""
    write(
        project / ".wave" / "rules" / "braces.md",
        '---\npaths: "{src,lib}/**/*.ts"\n---\nBRACE-RULE\n',
    )
    write(
        project / ".wave" / "rules" / "folded.md",
        "---\npaths: >-\n  docs/**/*.md,\n  lib/**/*.ts\npriority: 1\n---\nFOLDED-RULE\n",
    )
    write(project / "lib" / "deep" / "x.ts", "x\n")
    model_server.enqueue(tool_call("Read", {"file_path": "lib/deep/x.ts"}), text("ok"))
    proc = run_wave("-p", "x", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    tail = json.dumps(model_server.requests[1].body["messages"][-2:])
    assert "BRACE-RULE" in tail and "FOLDED-RULE" in tail


@pytest.mark.req("R5")
def test_grep_content_lines_trigger_rules_but_files_only_mode_does_not(
    model_server: ModelServer, project: Path
) -> None:
    """R5: files whose lines a Grep returned are in context; a bare list of names is not."""
    write(project / ".wave" / "rules" / "py.md", '---\npaths: ["**/*.py"]\n---\nPY-RULE\n')
    write(project / "pkg" / "mod.py", "needle = 1\n")
    model_server.enqueue(
        tool_call("Grep", {"pattern": "needle", "output_mode": "files_with_matches"}),
        tool_call("Grep", {"pattern": "needle", "output_mode": "content"}),
        text("ok"),
    )
    proc = run_wave("-p", "x", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "PY-RULE" not in json.dumps(model_server.requests[1].body["messages"])
    assert "PY-RULE" in model_server.requests[2].body["messages"][-1]["content"]


@pytest.mark.req("D1", "D2", "D4", "D6")
def test_nested_agents_md_far_to_near_once_and_agents_beats_claude(
    model_server: ModelServer, project: Path
) -> None:
    """D1, D2, D4, D6: far to near, once per session, root AGENTS.md never nested-injected."""
    write(project / "AGENTS.md", "ROOT-MEMORY\n")
    write(project / "packages" / "AGENTS.md", "PACKAGES-MEMORY\n")
    write(project / "packages" / "foo" / "AGENTS.md", "FOO-AGENTS\n")
    write(project / "packages" / "foo" / "CLAUDE.md", "FOO-CLAUDE\n")
    write(project / "packages" / "foo" / "src" / "a.ts", "a\n")
    write(project / "packages" / "foo" / "src" / "b.ts", "b\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "packages/foo/src/a.ts"}),
        tool_call("Read", {"file_path": "packages/foo/src/b.ts"}),
        text("ok"),
    )
    proc = run_wave("-p", "x", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    after_a = model_server.requests[1].body["messages"]
    injected = [t for t in texts(after_a) if t.startswith("<system-reminder>Contents of ")]
    assert len(injected) == 2
    assert "PACKAGES-MEMORY" in injected[0] and "FOO-AGENTS" in injected[1]  # far to near
    expected_path = project / "packages" / "foo" / "AGENTS.md"
    assert injected[1].startswith(f"<system-reminder>Contents of {expected_path}:\n\nFOO-AGENTS")
    assert injected[1].endswith("</system-reminder>")
    assert "FOO-CLAUDE" not in json.dumps(after_a)
    assert sum("ROOT-MEMORY" in json.dumps(m) for m in after_a) == 1  # only the reminder
    final = model_server.requests[2].body["messages"]
    assert sum("FOO-AGENTS" in json.dumps(m) for m in final) == 1  # not again for b.ts


@pytest.mark.req("R7")
def test_symlinked_rule_folder_loads_and_a_cycle_terminates_with_a_warning(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    """R7: symlinks to folders outside are followed; a cycle is detected and reported."""
    shared = write(tmp_path / "team-rules" / "shared.md", "SHARED-TEAM-RULE\n").parent
    rules = project / ".wave" / "rules"
    rules.mkdir(parents=True)
    os.symlink(shared, rules / "team")
    os.symlink(rules, rules / "loop")
    os.symlink(rules / "missing.md", rules / "broken.md")
    write(rules / "local.md", "LOCAL-RULE\n")
    proc = run_wave("-p", "x", cwd=project, server=model_server, timeout=30)
    assert proc.returncode == 0, proc.stderr
    reminder = parts(model_server.requests[0].body["messages"][1])[0]
    assert "SHARED-TEAM-RULE" in reminder and "LOCAL-RULE" in reminder
    assert reminder.count("LOCAL-RULE") == 1
    assert "cycle" in proc.stderr.lower() or "loop" in proc.stderr.lower()


@pytest.mark.req("R10")
def test_invalid_frontmatter_is_reported_and_the_rest_load(
    model_server: ModelServer, project: Path
) -> None:
    """R10: a broken file is named in one line; the other rules still load."""
    write(project / ".wave" / "rules" / "bad.md", "---\npaths: [unclosed\n---\nBAD-RULE\n")
    write(project / ".wave" / "rules" / "globs.md", "---\nglobs: src/**\n---\nGLOBS-RULE\n")
    write(project / ".wave" / "rules" / "good.md", "GOOD-RULE\n")
    proc = run_wave("-p", "x", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    reminder = parts(model_server.requests[0].body["messages"][1])[0]
    assert "GOOD-RULE" in reminder and "BAD-RULE" not in reminder and "GLOBS-RULE" not in reminder
    assert "bad.md" in proc.stderr and "globs.md" in proc.stderr


@pytest.mark.req("R8")
def test_project_rule_overrides_user_rule_with_the_same_id(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """R8: ~/.wave/rules load everywhere; the project's file with the same id wins."""
    write(isolated_home / ".wave" / "rules" / "style.md", "USER-STYLE\n")
    write(isolated_home / ".wave" / "rules" / "mine.md", "USER-ONLY\n")
    write(project / ".wave" / "rules" / "style.md", "PROJECT-STYLE\n")
    proc = run_wave("-p", "x", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    reminder = parts(model_server.requests[0].body["messages"][1])[0]
    assert "PROJECT-STYLE" in reminder and "USER-ONLY" in reminder and "USER-STYLE" not in reminder


@pytest.mark.req("M6")
def test_monorepo_root_agents_md_applies_in_a_package(
    model_server: ModelServer, tmp_path: Path
) -> None:
    """M6: AGENTS.md files from the repository top down to the project root, far to near."""
    import subprocess

    repo = tmp_path / "mono"
    write(repo / "AGENTS.md", "MONO-ROOT\n")
    write(repo / "packages" / "AGENTS.md", "PACKAGES-LEVEL\n")
    write(repo / "packages" / "app" / "AGENTS.md", "APP-LEVEL\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    proc = run_wave("-p", "x", cwd=repo / "packages" / "app", server=model_server)
    assert proc.returncode == 0, proc.stderr
    reminder = parts(model_server.requests[0].body["messages"][1])[0]
    positions = [reminder.index(s) for s in ("MONO-ROOT", "PACKAGES-LEVEL", "APP-LEVEL")]
    assert positions == sorted(positions)


@pytest.mark.req("I2")
def test_resume_does_not_repeat_a_rule_already_loaded(
    model_server: ModelServer, project: Path
) -> None:
    """I2: the loaded-rule set is rebuilt from the transcript on resume."""
    write(project / ".wave" / "rules" / "api.md", "---\npaths: src/**\n---\nAPI-RULE\n")
    write(project / "src" / "a.ts", "a\n")
    model_server.enqueue(tool_call("Read", {"file_path": "src/a.ts"}), text("ok"))
    assert run_wave("-p", "x", cwd=project, server=model_server).returncode == 0
    (project / "src" / "a.ts").write_text("changed\n")
    model_server.enqueue(tool_call("Read", {"file_path": "src/a.ts"}), text("ok"))
    assert run_wave("-p", "y", "--continue", cwd=project, server=model_server).returncode == 0
    final = model_server.requests[-1].body["messages"]
    assert sum("API-RULE" in json.dumps(m) for m in final) == 1
