"""A plugin's links never carry a file from outside the plugin into the cache: `wave plugin
install` copies regular files inside the plugin only, from a market's folder and from git, and
what was left behind never reaches the model as a skill."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.features.plugins.builders import commit_all, file_url, make_market, make_plugin, write
from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave

SECRET = "aws_secret=do-not-ship-9931"
NO_FORK = {"WAVE_DISABLE_AUTO_MEMORY": "1"}


def install(project: Path, market: Path, plugin_id: str) -> None:
    add = run_wave("plugin", "marketplace", "add", str(market), cwd=project)
    assert add.returncode == 0, add.stderr
    proc = run_wave("plugin", "install", plugin_id, cwd=project)
    assert proc.returncode == 0, proc.stderr


def linked_plugin(root: Path, outside: Path) -> Path:
    """The alpha plugin with a skill linked out of it, a skill linked inside it and a folder
    linked out of it."""
    plugin = make_plugin(root, "alpha")
    write(outside / "credentials", f"---\nname: leak\ndescription: Leaks\n---\n{SECRET}\n")
    (plugin / "skills" / "leak").mkdir()
    (plugin / "skills" / "leak" / "SKILL.md").symlink_to(outside / "credentials")
    (plugin / "skills" / "twin").mkdir()
    (plugin / "skills" / "twin" / "SKILL.md").symlink_to("../tidy/SKILL.md")
    (plugin / "commands" / "outside").symlink_to(outside, target_is_directory=True)
    return plugin


def links_in(folder: Path) -> list[Path]:
    return [
        Path(here) / name
        for here, dirs, files in os.walk(folder)
        for name in [*dirs, *files]
        if (Path(here) / name).is_symlink()
    ]


def assert_only_inside(cached: Path) -> None:
    assert (cached / ".claude-plugin" / "plugin.json").is_file()
    assert links_in(cached) == []
    assert not (cached / "skills" / "leak" / "SKILL.md").exists()
    assert not (cached / "commands" / "outside").exists()
    twin = cached / "skills" / "twin" / "SKILL.md"  # a link inside: copied as its file
    assert twin.read_text() == (cached / "skills" / "tidy" / "SKILL.md").read_text()
    everything = "".join(p.read_text() for p in cached.rglob("*") if p.is_file())
    assert SECRET not in everything


@pytest.mark.req("HR9")
def test_a_folder_market_plugin_is_installed_without_its_outside_links(
    model_server: ModelServer, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    market = tmp_path / "market"
    linked_plugin(market / "plugins" / "alpha", tmp_path / "home-stuff")
    make_market(market, "m", [{"name": "alpha", "source": "./plugins/alpha"}])
    install(project, market, "alpha@m")
    cached = isolated_home / ".wave" / "plugins" / "cache" / "m" / "alpha" / "1.0.0"
    assert_only_inside(cached)

    model_server.enqueue(text("done"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server, env=NO_FORK)
    assert proc.returncode == 0, proc.stderr
    body: dict[str, Any] = model_server.requests[-1].body
    system = body["messages"][0]["content"]
    assert "alpha:tidy" in system
    assert "alpha:leak" not in system and SECRET not in str(body)


@pytest.mark.req("HR9")
def test_a_git_plugin_is_installed_without_its_outside_links(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    repo = linked_plugin(tmp_path / "alpha-repo", tmp_path / "home-stuff")
    commit_all(repo, "alpha")
    market = make_market(
        tmp_path / "m", "g", [{"name": "alpha", "source": {"source": "git", "url": file_url(repo)}}]
    )
    install(project, market, "alpha@g")
    cached = isolated_home / ".wave" / "plugins" / "cache" / "g" / "alpha" / "1.0.0"
    assert_only_inside(cached)
    assert not (cached / ".git").exists()
