"""Real plugins and marketplaces built in temporary folders, in the shapes Claude Code's plugin
documentation gives (`.claude-plugin/plugin.json`, `commands/`, `agents/`, `skills/<n>/SKILL.md`,
`hooks/hooks.json` with `${CLAUDE_PLUGIN_ROOT}`, `.mcp.json`, `.lsp.json`) and wave's own layout."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

LAYOUTS = (".claude-plugin", ".wave-plugin")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_json(path: Path, data: Any) -> Path:
    return write(path, json.dumps(data, indent=2))


def make_plugin(
    root: Path,
    name: str,
    *,
    layout: str = ".claude-plugin",
    version: str = "1.0.0",
    description: str = "",
    hook_log: Path | None = None,
    root_variable: str = "CLAUDE_PLUGIN_ROOT",
) -> Path:
    """A plugin with a command, an agent, a skill and (with `hook_log`) a UserPromptSubmit hook
    whose script is found through the plugin-root variable."""
    write_json(
        root / layout / "plugin.json",
        {
            "name": name,
            "version": version,
            "description": description or f"The {name} plugin",
            "author": {"name": "Test Author", "email": "t@example.com"},
        },
    )
    write(
        root / "commands" / "hello.md",
        f"---\ndescription: Say hello from {name}\nargument-hint: [who]\n---\n"
        f"Say hello to $ARGUMENTS from the {name} plugin.\n",
    )
    write(
        root / "agents" / "reviewer.md",
        f"---\nname: reviewer\ndescription: Reviews code for {name}\ntools: Read, Grep\n---\n"
        "You review code.\n",
    )
    write(
        root / "skills" / "tidy" / "SKILL.md",
        f"---\nname: tidy\ndescription: Tidy things the {name} way\n---\nTidy: $ARGUMENTS\n",
    )
    if hook_log is not None:
        script = write(
            root / "hooks-handlers" / "prompt.sh",
            f'#!/bin/sh\necho "{name} hook ran from $0" >> {hook_log}\n'
            f'echo "{name} env $CLAUDE_PLUGIN_ROOT $WAVE_PLUGIN_ROOT" >> {hook_log}\n',
        )
        script.chmod(0o755)
        write_json(
            root / "hooks" / "hooks.json",
            {
                "description": f"{name} hooks",
                "hooks": {
                    "UserPromptSubmit": [
                        {
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": f"${{{root_variable}}}/hooks-handlers/prompt.sh",
                                    "timeout": 10,
                                }
                            ]
                        }
                    ]
                },
            },
        )
    return root


def make_market(
    root: Path,
    name: str,
    plugins: list[dict[str, Any]],
    *,
    layout: str = ".claude-plugin",
) -> Path:
    write_json(
        root / layout / "marketplace.json",
        {
            "$schema": "https://json.schemastore.org/claude-code-marketplace.json",
            "name": name,
            "owner": {"name": "Test Owner", "email": "owner@example.com"},
            "plugins": plugins,
        },
    )
    return root


def git(cwd: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
        "HOME": str(cwd),
    }
    out = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return out.stdout


def commit_all(repo: Path, message: str) -> None:
    if not (repo / ".git").exists():
        git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def git_market(root: Path, name: str, plugin: str, version: str) -> Path:
    """A marketplace repository whose one plugin lives in it (a relative source)."""
    make_plugin(root / "plugins" / plugin, plugin, version=version)
    make_market(
        root,
        name,
        [
            {
                "name": plugin,
                "source": f"./plugins/{plugin}",
                "description": f"{plugin} from git",
                "version": version,
            }
        ],
    )
    commit_all(root, f"{plugin} {version}")
    return root


def file_url(path: Path) -> str:
    return path.resolve().as_uri()
