"""Command bodies' `!` commands in the app's terms: asked when the policy would ask, never run
for a project command whose code is not trusted; and lenient frontmatter for commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wave_tui.agent.commands import PromptExpansion
from wave_tui.config.paths import WavePaths
from wave_tui.config.trust import TrustStore
from wave_tui.features.commands.command_body import BodyShell
from wave_tui.features.commands.custom import CustomCommands, trust_items
from wave_tui.files.read_state import ReadState
from wave_tui.permissions.policy import Ask, PermissionPolicy, PermissionReply


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


class Asker:
    def __init__(self, reply: PermissionReply) -> None:
        self.reply = reply
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, tool: str, args: dict[str, Any], reason: str) -> PermissionReply:
        self.asked.append((tool, args))
        return self.reply


def commands_for(project: Path, mode: str, ask: Ask | None) -> tuple[CustomCommands, TrustStore]:
    paths = WavePaths.for_workdir(project)
    store = TrustStore(paths.trust_file, "ask" if mode == "ask" else "invoker")
    shell = BodyShell(
        workdir=lambda: project,
        env=lambda: None,
        policy=PermissionPolicy(project),
        ask=lambda: ask,
        read_state=ReadState,
    )
    return CustomCommands(paths, lambda _: None, store, shell=shell), store


MAKE = "---\ndescription: Make\n---\nMade: !`touch made.txt && echo made`\n"


@pytest.mark.req("PH3")
async def test_the_app_asks_before_a_body_command_the_policy_would_ask_about(
    project: Path,
) -> None:
    write(project / ".claude" / "commands" / "make.md", MAKE)
    refuse = Asker("deny")
    commands, _store = commands_for(project, "invoker", refuse)
    (command,) = commands.commands()
    result = await command.run("")
    assert isinstance(result, PromptExpansion)
    assert refuse.asked == [("Bash", {"command": "touch made.txt && echo made"})]
    assert "was not run: Permission denied by the user" in result.prompt
    assert not (project / "made.txt").exists()
    allow = Asker("allow_once")
    commands, _store = commands_for(project, "invoker", allow)
    (command,) = commands.commands()
    result = await command.run("")
    assert isinstance(result, PromptExpansion)
    assert result.prompt == "Made: made"
    assert (project / "made.txt").exists()


@pytest.mark.req("PH3")
async def test_an_untrusted_project_command_runs_no_body_command(project: Path) -> None:
    write(project / ".wave" / "commands" / "who.md", "Who: !`echo me > who.txt; echo me`\n")
    allow = Asker("allow_once")
    commands, store = commands_for(project, "ask", allow)
    (command,) = commands.commands()
    result = await command.run("")
    assert isinstance(result, PromptExpansion)
    assert "was not run: this command's code is not trusted" in result.prompt
    assert allow.asked == [] and not (project / "who.txt").exists()
    request = store.request(project, "commands", trust_items(commands.load()))
    assert request is not None and "/who: runs ! commands" in request.items
    store.record(request)
    result = await command.run("")
    assert isinstance(result, PromptExpansion) and result.prompt == "Who: me"


@pytest.mark.req("PH4")
def test_command_frontmatter_strict_yaml_refuses_is_read_line_by_line(project: Path) -> None:
    write(
        project / ".wave" / "commands" / "deploy.md",
        "---\ndescription: Deploy: build, then ship\nargument-hint: <env>\n"
        "allowed-tools: Bash(make:*), Bash(git push:*)\n---\nDeploy $1.\n",
    )
    write(project / ".wave" / "commands" / "bad.md", "---\nallowed-tools: [Bash(x\n---\nBad.\n")
    warnings: list[str] = []
    paths = WavePaths.for_workdir(project)
    commands = CustomCommands(paths, warnings.append, TrustStore(paths.trust_file, "invoker"))
    loaded = {c.name: c for c in commands.load()}
    deploy = loaded["deploy"]
    assert deploy.description == "Deploy: build, then ship"
    assert deploy.argument_hint == "<env>"
    assert deploy.allowed_tools == ("Bash(make:*)", "Bash(git push:*)")
    assert len(warnings) == 1 and "bad.md" in warnings[0] and "invalid YAML" in warnings[0]
