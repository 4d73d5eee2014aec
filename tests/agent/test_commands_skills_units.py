"""Custom commands and skills in process: hot reload, argument expansion, trust of grants."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wave_tui.agent.commands import CommandRegistry, PromptExpansion
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import EffectiveSettings
from wave_tui.config.trust import TrustStore
from wave_tui.features.commands.custom import CustomCommands
from wave_tui.features.commands.custom import trust_items as command_trust_items
from wave_tui.features.commands.markdown_files import expand_arguments
from wave_tui.features.commands.skills import Skills
from wave_tui.permissions.rules import parse_rule_list


def write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    st = path.stat()  # a same-size rewrite within one mtime tick must still be seen
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


@pytest.mark.req("CS2")
def test_cs2_expand_arguments() -> None:
    assert expand_arguments("Fix $ARGUMENTS now", "a b") == "Fix a b now"
    assert expand_arguments("$1 then $2, not $3", "x 'y z'") == "x then y z, not "
    assert expand_arguments("No placeholder", "extra") == "No placeholder\n\nARGUMENTS: extra"
    assert expand_arguments("No placeholder", "") == "No placeholder"


@pytest.mark.req("HL4")
def test_hl4_parse_rule_list_keeps_parentheses_together() -> None:
    assert parse_rule_list("Read,Bash(git *) Edit, mcp__gh__search") == [
        "Read",
        "Bash(git *)",
        "Edit",
        "mcp__gh__search",
    ]


@pytest.mark.req("CS6")
async def test_cs6_commands_hot_reload_and_new_files_appear(project: Path) -> None:
    paths = WavePaths.for_workdir(project)
    lines: list[str] = []
    commands = CustomCommands(paths, lines.append, TrustStore(paths.trust_file, "invoker"))
    registry = CommandRegistry()
    registry.add_provider(commands)
    assert registry.get("review") is None
    write(project / ".wave" / "commands" / "review.md", "---\ndescription: Review\n---\nOne\n")
    assert (await registry.dispatch("/review")) == PromptExpansion("One")
    write(project / ".wave" / "commands" / "review.md", "---\ndescription: Review\n---\nTwo\n")
    assert (await registry.dispatch("/review")) == PromptExpansion("Two")
    assert [c.name for c in registry.complete("rev")] == ["review"]
    assert lines == []


@pytest.mark.req("CS2")
async def test_cs2_project_grants_need_trust_in_the_app(project: Path) -> None:
    paths = WavePaths.for_workdir(project)
    write(project / ".wave" / "commands" / "mk.md", "---\nallowed-tools: Bash(touch *)\n---\nGo\n")
    store = TrustStore(paths.trust_file, "ask")
    commands = CustomCommands(paths, lambda _: None, store)
    (command,) = commands.commands()
    assert await command.run("") == PromptExpansion("Go", ())
    request = store.request(project, "commands", command_trust_items(commands.load()))
    assert request is not None
    store.record(request)
    assert await command.run("") == PromptExpansion("Go", ("Bash(touch *)",))


@pytest.mark.req("CS6")
def test_cs6_skills_hot_reload_and_the_section_is_stable(project: Path) -> None:
    paths = WavePaths.for_workdir(project)
    lines: list[str] = []
    skills = Skills(paths, lines.append)
    settings = EffectiveSettings()
    # Only the built-in skills the model may call itself (deep-research, wave-daemon) at first.
    (builtin,) = skills.system_sections(settings)
    assert "- deep-research: " in builtin and "- wave-daemon: " in builtin
    assert "- lint" not in builtin
    skill = project / ".wave" / "skills" / "lint" / "SKILL.md"
    write(skill, "---\nname: lint\ndescription: Run the linters\n---\nBody\n")
    first = skills.system_sections(settings)
    assert first == skills.system_sections(settings)  # stable while unchanged
    assert "- lint: Run the linters" in first[0]
    write(skill, "---\nname: lint\ndescription: Run ruff\n---\nBody\n")
    assert "- lint: Run ruff" in skills.system_sections(settings)[0]
    write(skill, "---\nname: [lint\n---\nBody\n")
    skills.load()
    skills.load()
    assert len(lines) == 1 and "SKILL.md" in lines[0] and "invalid YAML" in lines[0]
