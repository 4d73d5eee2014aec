"""Memory imports and project links under attack: nothing outside the project (and the
user's ~/.wave Markdown) reaches the model through `@path` imports, command or skill files that
are links out of the project, and an import fan-out is bounded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths
from wave_tui.memory.imports import expand_imports

SECRET = "BEGIN-SECRET-0xDEADBEEF"


def sent(server: ModelServer) -> str:
    return json.dumps([r.body for r in server.requests])


def plant_secrets(home: Path, outside: Path) -> None:
    (home / ".ssh").mkdir(parents=True, exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text(f"{SECRET} ssh\n")
    (home / ".wave").mkdir(parents=True, exist_ok=True)
    (home / ".wave" / "mcp-auth.json").write_text(json.dumps({"token": f"{SECRET} token"}))
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret").write_text(f"{SECRET} outside\n")


@pytest.mark.parametrize(
    "line",
    [
        "@~/.ssh/id_rsa",
        "- @~/.ssh/id_rsa",
        "@../outside/secret",
        "@../../outside/secret",
        "@{outside}/secret",
        "@~/.wave/mcp-auth.json",
        "@link/secret",
        "@docs/hop.md",
    ],
)
def test_a_project_import_out_of_the_project_never_reaches_the_model(
    model_server: ModelServer, project: Path, tmp_path: Path, line: str
) -> None:
    home = Path.home()
    outside = tmp_path / "outside"
    plant_secrets(home, outside)
    (project / "link").symlink_to(outside)
    (project / "docs").mkdir()
    (project / "docs" / "hop.md").write_text("Hop.\n@../../outside/secret\n")
    (project / "sub").mkdir()
    (project / "AGENTS.md").write_text(f"Project notes.\n{line.format(outside=outside)}\n")
    model_server.enqueue(text("ok"))
    result = run_wave("-p", "hi", cwd=project, server=model_server)
    assert result.returncode == 0, result.stderr
    body = sent(model_server)
    assert "Project notes." in body
    assert SECRET not in body
    assert "outside the project" in result.stderr


def test_imports_inside_the_project_and_wave_markdown_still_load(
    model_server: ModelServer, project: Path
) -> None:
    (Path.home() / ".wave").mkdir(parents=True, exist_ok=True)
    (Path.home() / ".wave" / "style.md").write_text("Wave style.\n")
    (project / "docs").mkdir()
    (project / "docs" / "a.md").write_text("Doc A.\n")
    (project / "AGENTS.md").write_text("@docs/a.md\n@~/.wave/style.md\n")
    model_server.enqueue(text("ok"))
    result = run_wave("-p", "hi", cwd=project, server=model_server)
    assert result.returncode == 0, result.stderr
    assert "Doc A." in sent(model_server) and "Wave style." in sent(model_server)


@pytest.mark.parametrize(
    ("fan", "levels", "size"), [(6, 5, 10), (3, 5, 40_000)], ids=["count", "bytes"]
)
def test_an_import_fan_out_is_bounded(project: Path, fan: int, levels: int, size: int) -> None:
    # Level k's every file imports every file of level k + 1: fan ** levels loads unbounded.
    for level in range(levels):
        for i in range(fan):
            below = [f"@L{level + 1}_{j}.md" for j in range(fan)] if level + 1 < levels else []
            body = [f"L{level}_{i} " + "x" * size, *below]
            (project / f"L{level}_{i}.md").write_text("\n".join(body) + "\n")
    top = project / "AGENTS.md"
    top.write_text("Top.\n" + "".join(f"@L0_{i}.md\n" for i in range(fan)))
    result = expand_imports(top, top.read_text(), WavePaths.for_workdir(project))
    assert len(result.imported) <= 64
    assert len(result.text.encode()) <= 600 * 1024
    assert any("imported" in p for p in result.problems)


@pytest.mark.parametrize("kind", ["command", "skill", "command-folder"])
def test_a_project_command_or_skill_that_links_out_is_not_served(
    model_server: ModelServer, project: Path, tmp_path: Path, kind: str
) -> None:
    home = Path.home()
    outside = tmp_path / "outside"
    plant_secrets(home, outside)
    (outside / "evil.md").write_text(f"---\ndescription: evil\n---\n{SECRET} command\n")
    (outside / "skill").mkdir()
    (outside / "skill" / "SKILL.md").write_text(f"---\nname: evil\n---\n{SECRET} skill\n")
    if kind == "command":
        (project / ".wave" / "commands").mkdir(parents=True)
        (project / ".wave" / "commands" / "evil.md").symlink_to(outside / "evil.md")
    elif kind == "command-folder":
        (project / ".wave" / "commands").mkdir(parents=True)
        (project / ".wave" / "commands" / "x").symlink_to(outside)
    else:
        (project / ".wave" / "skills").mkdir(parents=True)
        (project / ".wave" / "skills" / "evil").symlink_to(outside / "skill")
    model_server.enqueue(text("ok"))
    prompt = "/x:evil" if kind == "command-folder" else "/evil"
    result = run_wave("-p", prompt, cwd=project, server=model_server)
    assert SECRET not in sent(model_server) and SECRET not in result.stdout
