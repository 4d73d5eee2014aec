"""Plugins in the shapes Claude Code's own plugins have, through `wave plugin install` and a real
`wave -p` run: command bodies that run `!` commands with `${CLAUDE_PLUGIN_ROOT}`, agent files
whose frontmatter strict YAML refuses, model aliases, and `"strict": false` market entries."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.features.plugins.builders import make_market, write, write_json
from tests.features.plugins.test_wave_p import FAKE_LSP, chats, install, tool_names
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def users(body: dict[str, Any]) -> str:
    return "\n".join(str(m["content"]) for m in body["messages"] if m["role"] == "user")


def bare_plugin(root: Path, name: str) -> Path:
    write_json(root / ".claude-plugin" / "plugin.json", {"name": name, "version": "1.0.0"})
    return root


def one_plugin_market(tmp_path: Path, name: str) -> tuple[Path, Path]:
    market = tmp_path / "market"
    plugin = bare_plugin(market / "plugins" / name, name)
    make_market(market, "m", [{"name": name, "source": f"./plugins/{name}"}])
    return market, plugin


SETUP_SCRIPT = '#!/bin/sh\necho "setup got $# words: $*"\necho setup > "$PWD/setup-ran.txt"\n'

LOOP_COMMAND = """\
---
description: "Start the loop"
argument-hint: "TASK [--max N]"
allowed-tools: ["Bash(${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh:*)"]
---

- Branch words: !`echo first=$1`
- Would ask: !`touch forbidden.txt`

```!
"${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh" $ARGUMENTS
```

Scripts live in ${CLAUDE_PLUGIN_ROOT}/scripts and ${WAVE_PLUGIN_ROOT}/scripts.
Read @notes.txt first.
"""


@pytest.mark.req("PH3")
def test_command_body_runs_its_commands_with_the_plugin_root_before_sending(
    model_server: ModelServer, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    market, plugin = one_plugin_market(tmp_path, "looper")
    write(plugin / "commands" / "loop.md", LOOP_COMMAND)
    write(plugin / "scripts" / "setup.sh", SETUP_SCRIPT).chmod(0o755)
    (project / "notes.txt").write_text("the notes say hello\n")
    install(project, market, "looper@m")
    model_server.enqueue(text("done"))
    proc = run_wave("-p", "/looper:loop fix-it --max 3", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (body,) = chats(model_server)
    sent = users(body)
    root = isolated_home / ".wave" / "plugins" / "cache" / "m" / "looper" / "1.0.0"
    assert "- Branch words: first=fix-it\n" in sent  # the span replaced by its output
    # The block ran (allowed by the command's allowed-tools, the root expanded in the rule).
    assert "setup got 3 words: fix-it --max 3" in sent
    assert (project / "setup-ran.txt").read_text() == "setup\n"
    assert f"Scripts live in {root}/scripts and {root}/scripts." in sent
    assert "${CLAUDE_PLUGIN_ROOT}" not in sent and "```!" not in sent
    # What the policy would ask about is not run in -p, and the model is told why.
    assert "[`touch forbidden.txt` was not run: Permission denied" in sent
    assert not (project / "forbidden.txt").exists()
    assert "the notes say hello" in sent  # `@path` attached


AGENT_WITH_EXAMPLES = """\
---
name: checker
description: Use this agent when: the user asks for a check. Examples:

<example>
Context: a change was made
user: "check it"
assistant: "I'll use the checker agent."
<commentary>
A check: use checker.
</commentary>
</example>

model: sonnet
color: yellow
tools: ["Read", "Grep"]
---

You check things.
"""

AGENT_ONE_LINE = """\
---
name: quick
description: Use this agent for quick looks. Examples: <example>Context: x\\nuser: "look"</example>
model: haiku
---
You look quickly.
"""


@pytest.mark.req("PH4")
@pytest.mark.req("PH5")
def test_agents_that_strict_yaml_refuses_load_and_their_model_aliases_map(
    model_server: ModelServer, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    market, plugin = one_plugin_market(tmp_path, "review")
    write(plugin / "agents" / "checker.md", AGENT_WITH_EXAMPLES)
    write(plugin / "agents" / "quick.md", AGENT_ONE_LINE)
    write(
        plugin / "agents" / "other.md",
        AGENT_ONE_LINE.replace("quick", "other").replace("model: haiku", "model: opus"),
    )
    write(plugin / "agents" / "broken.md", "---\nname: [oops\ndescription: x\n---\nbody\n")
    install(project, market, "review@m")
    settings = isolated_home / ".wave" / "settings.json"
    kept = json.loads(settings.read_text())  # the install's enabledPlugins
    write_json(settings, {**kept, "modelAliases": {"sonnet": "smart"}, "fastModel": "fast"})
    model_server.enqueue(
        tool_call(
            "Agent", {"description": "c", "prompt": "check", "subagent_type": "review:checker"}
        ),
        text("checked"),
        tool_call("Agent", {"description": "q", "prompt": "look", "subagent_type": "review:quick"}),
        text("looked"),
        tool_call("Agent", {"description": "o", "prompt": "look", "subagent_type": "review:other"}),
        text("other looked"),
        text("done"),
    )
    proc = run_wave(
        "-p", "review please", "--allowedTools", "Agent", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    bodies = chats(model_server)
    agent = next(t for t in bodies[0]["tools"] if t["function"]["name"] == "Agent")
    kinds = agent["function"]["parameters"]["properties"]["subagent_type"]["enum"]
    assert {"review:checker", "review:quick", "review:other"} <= set(kinds)
    assert "review:broken" not in kinds
    # sonnet → its alias; haiku unmapped → the fast model; opus unmapped → the session's.
    assert [b["model"] for b in bodies] == [
        "test-model",
        "smart",
        "test-model",
        "fast",
        "test-model",
        "test-model",
        "test-model",
    ]
    checker_system = str(bodies[1]["messages"][0]["content"])
    assert "You check things." in checker_system
    assert tool_names(bodies[1]) == ["Read", "Grep"]
    # The file still unreadable is one warning line naming it; the others loaded silently.
    warnings = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "broken.md" in warnings[0], proc.stderr


@pytest.mark.req("PH5")
def test_a_command_model_alias_never_reaches_the_wire(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    write(project / ".wave" / "commands" / "quick.md", "---\nmodel: haiku\n---\nBe quick.\n")
    write(project / ".wave" / "commands" / "deep.md", "---\nmodel: opus\n---\nBe deep.\n")
    write_json(isolated_home / ".wave" / "settings.json", {"fastModel": "fast"})
    model_server.enqueue(text("ok"))
    assert run_wave("-p", "/quick", cwd=project, server=model_server).returncode == 0
    model_server.enqueue(text("ok"))
    assert run_wave("-p", "/deep", cwd=project, server=model_server).returncode == 0
    assert [b["model"] for b in chats(model_server)] == ["fast", "test-model"]


def skill(root: Path, name: str) -> None:
    write(
        root / name / "SKILL.md",
        f"---\nname: {name}\ndescription: The {name} skill\n---\nDo {name}.\n",
    )


@pytest.mark.req("PH6")
def test_strict_false_entries_are_the_manifest_their_lists_restrict_and_lsp_is_inline(
    model_server: ModelServer, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    market = tmp_path / "market"
    for name in ("alpha", "beta", "gamma"):
        skill(market / "skills", name)
    lsp = market / "plugins" / "fake-lsp"
    lsp.mkdir(parents=True)
    shutil.copy(FAKE_LSP, lsp / "fake_lsp.py")
    make_market(
        market,
        "m",
        [
            {
                "name": "two-skills",
                "source": "./",
                "strict": False,
                "skills": ["./skills/alpha", "./skills/gamma"],
            },
            {
                "name": "fake-lsp",
                "source": "./plugins/fake-lsp",
                "version": "1.0.0",
                "strict": False,
                "lspServers": {
                    "fake": {
                        "command": sys.executable,
                        "args": ["${CLAUDE_PLUGIN_ROOT}/fake_lsp.py"],
                        "extensionToLanguage": {".py": "python"},
                    }
                },
            },
        ],
    )
    install(project, market, "two-skills@m", "fake-lsp@m")
    model_server.enqueue(text("done"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (body,) = chats(model_server)
    system = str(body["messages"][0]["content"])
    assert "- two-skills:alpha: The alpha skill" in system
    assert "- two-skills:gamma: The gamma skill" in system
    assert "two-skills:beta" not in system  # not in the entry's list
    assert "LSP" in tool_names(body)  # the entry's inline server started
    listed = run_wave("plugin", "list", "--json", cwd=project)
    assert {p["name"] for p in json.loads(listed.stdout)} == {"two-skills", "fake-lsp"}


@pytest.mark.req("FH10")
def test_agents_lists_the_plugin_agents_the_model_is_offered(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    market, plugin = one_plugin_market(tmp_path, "review")
    write(plugin / "agents" / "quick.md", AGENT_ONE_LINE)
    install(project, market, "review@m")
    proc = run_wave("-p", "/agents", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "review:quick" in proc.stdout
