"""The JSON hook output protocol through `wave -p`, with real hook scripts (PH1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.hook_helpers import configure, contents, project_settings, script
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import chats

pytestmark = pytest.mark.req("PH1")

DENY_RM = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "rm -rf blocked",
    }
}


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def json_hook(project: Path, name: str, output: dict[str, Any]) -> Path:
    """A hook that prints `output` as JSON and exits 0."""
    return script(project, name, f"cat > /dev/null\ncat <<'EOF'\n{json.dumps(output)}\nEOF\n")


def hookify(project: Path) -> Path:
    """hookify's block-`rm -rf` rule: a python hook that denies `rm -rf` commands, exit 0."""
    path = project / "hooks" / "hookify.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(
        "import json, sys\n"
        "call = json.load(sys.stdin)\n"
        "if 'rm -rf' in call['tool_input'].get('command', ''):\n"
        f"    print(json.dumps({DENY_RM!r}))\n"
    )
    return path


def last_tool_message(server: ModelServer) -> str:
    message = chats(server)[-1]["messages"][-1]
    assert message["role"] == "tool"
    return str(message["content"])


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
def test_ph1_a_json_deny_blocks_rm_rf_in_every_mode_and_the_reason_is_said(
    model_server: ModelServer, project: Path, mode: str
) -> None:
    (project / "junk").mkdir()
    (project / "junk" / "keep.txt").write_text("x")
    configure(
        project_settings(project), "PreToolUse", f"python3 {hookify(project)}", matcher="Bash"
    )
    settings = json.loads(project_settings(project).read_text())
    settings["permissions"] = {"allow": ["Bash"]}  # even an allow rule does not let it through
    project_settings(project).write_text(json.dumps(settings))
    model_server.enqueue(tool_call("Bash", {"command": "rm -rf junk"}), text("Could not."))
    proc = run_wave("-p", "clean up", "--permission-mode", mode, cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert (project / "junk" / "keep.txt").exists()
    told = last_tool_message(model_server)
    assert "rm -rf blocked" in told and "hookSpecificOutput" not in told
    assert "PreToolUse hook denied Bash: rm -rf blocked" in proc.stderr


def test_ph1_legacy_decision_block_denies_and_plain_stdout_does_not(
    model_server: ModelServer, project: Path
) -> None:
    legacy = json_hook(project, "legacy.sh", {"decision": "block", "reason": "no globbing"})
    configure(project_settings(project), "PreToolUse", str(legacy), matcher="Glob")
    plain = script(project, "plain.sh", "cat > /dev/null\necho just talking\n")
    configure(project_settings(project), "PreToolUse", str(plain), matcher="Read")
    (project / "a.txt").write_text("alpha")
    model_server.enqueue(
        tool_call("Glob", {"pattern": "*"}),
        tool_call("Read", {"file_path": "a.txt"}),
        text("done"),
    )
    proc = run_wave("-p", "look", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    glob_result = chats(model_server)[1]["messages"][-1]["content"]
    assert "no globbing" in glob_result
    assert "alpha" in last_tool_message(model_server)


def test_ph1_allow_spares_the_question_but_never_a_deny_rule(
    model_server: ModelServer, project: Path
) -> None:
    allow = json_hook(
        project,
        "allow.sh",
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}},
    )
    configure(project_settings(project), "PreToolUse", str(allow), matcher="Bash")
    settings = json.loads(project_settings(project).read_text())
    settings["permissions"] = {"deny": ["Bash(touch denied*)"]}
    project_settings(project).write_text(json.dumps(settings))
    model_server.enqueue(
        tool_call("Bash", {"command": "touch allowed"}),
        tool_call("Bash", {"command": "touch denied"}),
        text("done"),
    )
    # -p asks nobody: without the hook's allow, `touch` would be refused.
    proc = run_wave("-p", "touch", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert (project / "allowed").exists()
    assert not (project / "denied").exists()
    assert "permissions.deny rule" in last_tool_message(model_server)


def test_ph1_ask_asks_even_in_bypass_mode_and_headless_refuses(
    model_server: ModelServer, project: Path
) -> None:
    ask = json_hook(
        project,
        "ask.sh",
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "ask",
                "permissionDecisionReason": "confirm every write",
            }
        },
    )
    configure(project_settings(project), "PreToolUse", str(ask), matcher="Write")
    model_server.enqueue(tool_call("Write", {"file_path": "o.txt", "content": "x"}), text("no"))
    proc = run_wave(
        "-p", "w", "--permission-mode", "bypassPermissions", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    assert not (project / "o.txt").exists()
    told = last_tool_message(model_server)
    assert "headless" in told and "confirm every write" in told


def test_ph1_updated_input_replaces_the_call_and_is_checked_again(
    model_server: ModelServer, project: Path
) -> None:
    rewrite = project / "hooks" / "rewrite.py"
    rewrite.parent.mkdir()
    rewrite.write_text(
        "import json, sys\n"
        "call = json.load(sys.stdin)\n"
        "command = call['tool_input']['command'].replace('junk', 'other')\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "    'permissionDecision': 'allow', 'updatedInput': {'command': command}}}))\n"
    )
    configure(project_settings(project), "PreToolUse", f"python3 {rewrite}", matcher="Bash")
    settings = json.loads(project_settings(project).read_text())
    settings["permissions"] = {"deny": ["Bash(touch other-denied)"]}
    project_settings(project).write_text(json.dumps(settings))
    model_server.enqueue(
        tool_call("Bash", {"command": "touch junk-file"}),
        tool_call("Bash", {"command": "touch junk-denied"}),
        text("done"),
    )
    proc = run_wave("-p", "touch", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert (project / "other-file").exists() and not (project / "junk-file").exists()
    assert not (project / "other-denied").exists() and not (project / "junk-denied").exists()
    assert "permissions.deny rule" in last_tool_message(model_server)


def test_ph1_additional_context_reaches_the_model_and_the_json_does_not(
    model_server: ModelServer, project: Path
) -> None:
    for event, note in (
        ("SessionStart", "ctx-session"),
        ("UserPromptSubmit", "ctx-prompt"),
        ("PostToolUse", "ctx-post"),
    ):
        out = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": note}}
        configure(project_settings(project), event, str(json_hook(project, f"{event}.sh", out)))
    model_server.enqueue(tool_call("Glob", {"pattern": "*"}), text("done"))
    proc = run_wave("-p", "go", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    first, second = (contents(body) for body in chats(model_server))
    assert any("ctx-session" in c for c in first) and any("ctx-prompt" in c for c in first)
    assert any("ctx-post" in c for c in second)
    assert not any("hookSpecificOutput" in c for c in first + second)


def test_ph1_decision_block_feeds_post_tool_use_back_and_makes_stop_go_on(
    model_server: ModelServer, project: Path
) -> None:
    post = json_hook(project, "post.sh", {"decision": "block", "reason": "lint failed on x"})
    configure(project_settings(project), "PostToolUse", str(post), matcher="Glob")
    stop = project / "hooks" / "stop.py"
    stop.write_text(
        "import json, sys\n"
        "if not json.load(sys.stdin)['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'run the tests first'}))\n"
    )
    configure(project_settings(project), "Stop", f"python3 {stop}")
    model_server.enqueue(tool_call("Glob", {"pattern": "*"}), text("a"), text("b"))
    proc = run_wave("-p", "go", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    bodies = chats(model_server)
    assert len(bodies) == 3 and proc.stdout == "b\n"
    assert any("lint failed on x" in c for c in contents(bodies[1]))
    assert any("run the tests first" in c for c in contents(bodies[2]))


def test_ph1_continue_false_stops_the_turn_and_system_message_is_a_warning(
    model_server: ModelServer, project: Path
) -> None:
    halt = json_hook(
        project,
        "halt.sh",
        {"continue": False, "stopReason": "build is red", "systemMessage": "checked by halt"},
    )
    configure(project_settings(project), "PreToolUse", str(halt), matcher="Write")
    model_server.enqueue(tool_call("Write", {"file_path": "o.txt", "content": "x"}), text("more"))
    proc = run_wave("-p", "w", "--permission-mode", "acceptEdits", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert not (project / "o.txt").exists()
    assert len(chats(model_server)) == 1  # no request after the stopped round
    assert "build is red" in proc.stderr and "checked by halt" in proc.stderr


def test_ph1_continue_false_on_user_prompt_submit_drops_the_prompt(
    model_server: ModelServer, project: Path
) -> None:
    halt = json_hook(project, "halt.sh", {"continue": False, "stopReason": "frozen today"})
    configure(project_settings(project), "UserPromptSubmit", str(halt))
    proc = run_wave("-p", "hello", cwd=project, server=model_server)
    assert proc.returncode == 1
    assert "frozen today" in proc.stderr
    assert not chats(model_server)


def test_ph1_continue_false_after_a_tool_ends_the_turn_after_its_round(
    model_server: ModelServer, project: Path
) -> None:
    halt = json_hook(project, "halt.sh", {"continue": False, "stopReason": "enough for today"})
    configure(project_settings(project), "PostToolUse", str(halt), matcher="Glob")
    model_server.enqueue(tool_call("Glob", {"pattern": "*"}), text("more"))
    proc = run_wave("-p", "look", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert len(chats(model_server)) == 1
    assert "turn stopped by a hook: enough for today" in proc.stderr
