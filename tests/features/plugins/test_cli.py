"""`wave plugin …` as the contract, run as the real command: markets from a folder and from a
local git repository with two versions, every sub-command, the files under `~/.wave/plugins/`,
and the faults — a broken plugin, a git URL that fails, a git server that never answers."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.features.plugins.builders import (
    commit_all,
    file_url,
    git_market,
    make_market,
    make_plugin,
    write,
    write_json,
)
from tests.wave_cli import run_wave


def wave(project: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    proc = run_wave("plugin", *args, cwd=project, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def ok(project: Path, *args: str) -> str:
    code, out, err = wave(project, *args)
    assert code == 0, err
    return out


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def plugins_dir(home: Path) -> Path:
    return home / ".wave" / "plugins"


@pytest.fixture
def folder_market(tmp_path: Path) -> Path:
    root = tmp_path / "market"
    make_plugin(root / "plugins" / "alpha", "alpha")
    make_plugin(root / "plugins" / "beta", "beta", layout=".wave-plugin")
    return make_market(
        root,
        "local-market",
        [
            {"name": "alpha", "source": "./plugins/alpha", "description": "Alpha does A"},
            {"name": "beta", "source": "./plugins/beta", "description": "Beta does B"},
        ],
    )


@pytest.mark.req("PG4")
@pytest.mark.req("PG5")
@pytest.mark.req("PG6")
def test_folder_market_install_list_enable_disable_uninstall(
    project: Path, folder_market: Path, isolated_home: Path
) -> None:
    assert (
        ok(project, "marketplace", "add", str(folder_market)) == "Added marketplace local-market\n"
    )
    known = read(plugins_dir(isolated_home) / "known_marketplaces.json")
    assert known["local-market"]["source"] == {"source": "directory", "path": str(folder_market)}
    assert "local-market  directory" in ok(project, "marketplace", "list")

    ok(project, "install", "alpha@local-market")
    ok(project, "install", "beta@local-market", "--scope", "project")
    cached = plugins_dir(isolated_home) / "cache" / "local-market" / "alpha" / "1.0.0"
    assert (cached / ".claude-plugin" / "plugin.json").is_file()
    assert not list((cached.parent.parent).glob(".staging-*"))  # nothing left of the staging
    installed = read(plugins_dir(isolated_home) / "installed_plugins.json")
    assert installed["version"] == 2
    (entry,) = installed["plugins"]["alpha@local-market"]
    assert (entry["scope"], entry["installPath"], entry["version"]) == (
        "user",
        str(cached),
        "1.0.0",
    )
    assert installed["plugins"]["beta@local-market"][0]["projectPath"] == str(project)
    user_settings = isolated_home / ".wave" / "settings.json"
    assert read(user_settings)["enabledPlugins"] == {"alpha@local-market": True}
    assert read(project / ".wave" / "settings.json")["enabledPlugins"] == {
        "beta@local-market": True
    }

    rows = json.loads(ok(project, "list", "--json"))
    assert rows == [
        {
            "name": "alpha",
            "marketplace": "local-market",
            "version": "1.0.0",
            "enabled": True,
            "scope": "user",
        },
        {
            "name": "beta",
            "marketplace": "local-market",
            "version": "1.0.0",
            "enabled": True,
            "scope": "project",
        },
    ]
    ok(project, "disable", "alpha@local-market")
    ok(project, "enable", "alpha@local-market", "--scope", "local")
    assert read(user_settings)["enabledPlugins"] == {"alpha@local-market": False}
    assert read(project / ".wave" / "settings.local.json")["enabledPlugins"] == {
        "alpha@local-market": True
    }
    assert json.loads(ok(project, "list", "--json"))[0]["enabled"] is True  # local wins
    assert "alpha@local-market  1.0.0  user  enabled" in ok(project, "list")

    ok(project, "uninstall", "alpha@local-market")
    assert not cached.exists()
    assert (
        "alpha@local-market"
        not in read(plugins_dir(isolated_home) / "installed_plugins.json")["plugins"]
    )
    assert read(user_settings)["enabledPlugins"] == {}
    assert [r["name"] for r in json.loads(ok(project, "list", "--json"))] == ["beta"]
    ok(project, "marketplace", "remove", "local-market")
    assert read(plugins_dir(isolated_home) / "known_marketplaces.json") == {}
    assert folder_market.is_dir()  # a folder market is the user's own: never deleted


@pytest.mark.req("PG4")
@pytest.mark.req("PG7")
def test_git_market_with_two_versions_update_fetches_and_upgrades(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    repo = git_market(tmp_path / "repo", "git-market", "gamma", "1.0.0")
    ok(project, "marketplace", "add", file_url(repo))
    checkout = plugins_dir(isolated_home) / "marketplaces" / "git-market"
    assert (checkout / ".git" / "shallow").is_file()  # a shallow clone
    ok(project, "install", "gamma@git-market")

    git_market(repo, "git-market", "gamma", "2.0.0")  # a second commit: version 2
    assert ok(project, "marketplace", "update", "git-market") == (
        "Updated marketplace git-market (1 plugins)\n"
    )
    listing = read(checkout / ".claude-plugin" / "marketplace.json")
    assert listing["plugins"][0]["version"] == "2.0.0"  # fetched ...
    assert json.loads(ok(project, "list", "--json"))[0]["version"] == "1.0.0"  # ... not upgraded

    assert ok(project, "update", "gamma@git-market") == "gamma@git-market: 1.0.0 → 2.0.0\n"
    cache = plugins_dir(isolated_home) / "cache" / "git-market" / "gamma"
    assert sorted(p.name for p in cache.iterdir()) == ["2.0.0"]
    assert json.loads(ok(project, "list", "--json"))[0]["version"] == "2.0.0"
    assert ok(project, "update") == "gamma@git-market: 2.0.0 is the latest\n"
    ok(project, "marketplace", "remove", "git-market")
    assert not checkout.exists()


@pytest.mark.req("PG4")
def test_a_plugin_whose_market_source_is_a_git_repository(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    plugin_repo = make_plugin(tmp_path / "delta", "delta", version="0.3.0")
    commit_all(plugin_repo, "delta")
    market = make_market(
        tmp_path / "m",
        "mixed",
        [{"name": "delta", "source": {"source": "git", "url": file_url(plugin_repo)}}],
        layout=".wave-plugin",
    )
    ok(project, "marketplace", "add", str(market))
    ok(project, "install", "delta@mixed")
    placed = plugins_dir(isolated_home) / "cache" / "mixed" / "delta" / "0.3.0"
    assert (placed / "commands" / "hello.md").is_file()
    assert not (placed / ".git").exists()
    entry = read(plugins_dir(isolated_home) / "installed_plugins.json")["plugins"]["delta@mixed"][0]
    assert len(entry["gitCommitSha"]) == 40


@pytest.mark.req("PG5")
def test_extra_known_marketplaces_install_without_marketplace_add(
    project: Path, folder_market: Path, isolated_home: Path
) -> None:
    write_json(
        isolated_home / ".wave" / "settings.json",
        {
            "extraKnownMarketplaces": {
                "team": {"source": {"source": "directory", "path": str(folder_market)}}
            }
        },
    )
    assert "(not fetched)" in ok(project, "marketplace", "list")
    # The market's own name is `local-market`: a folder is read where it is, under that name.
    code, _out, err = wave(project, "install", "alpha@team")
    assert code == 0, err
    assert json.loads(ok(project, "list", "--json"))[0]["name"] == "alpha"


@pytest.mark.req("PG6")
def test_a_broken_plugin_installs_nothing(
    project: Path, folder_market: Path, isolated_home: Path
) -> None:
    write(folder_market / "plugins" / "alpha" / ".claude-plugin" / "plugin.json", "{broken")
    ok(project, "marketplace", "add", str(folder_market))
    code, out, err = wave(project, "install", "alpha@local-market")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("wave: plugin alpha not installed: ")
    assert "not valid JSON" in err
    cache = plugins_dir(isolated_home) / "cache" / "local-market"
    assert list(cache.iterdir()) == []  # no version, no staging folder
    assert not (plugins_dir(isolated_home) / "installed_plugins.json").exists()
    assert not (isolated_home / ".wave" / "settings.json").exists()
    code, _out, err = wave(project, "install", "nope@local-market")
    assert code == 1 and err == "wave: marketplace local-market has no plugin 'nope'\n"
    code, _out, err = wave(project, "install", "no-at-sign")
    assert code == 1 and err == "wave: no-at-sign: name a plugin as NAME@MARKET\n"
    code, _out, err = wave(project, "enable", "ghost@local-market")
    assert code == 1 and err == "wave: plugin ghost@local-market is not installed\n"


@pytest.mark.req("PG7")
def test_a_git_url_that_fails_is_one_line_and_records_nothing(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    code, out, err = wave(project, "marketplace", "add", file_url(tmp_path / "no-such-repo"))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("wave: marketplace file://")
    assert "fatal:" in err
    assert list((plugins_dir(isolated_home) / "marketplaces").iterdir()) == []
    assert not (plugins_dir(isolated_home) / "known_marketplaces.json").exists()


@pytest.fixture
def silent_server() -> Iterator[str]:
    """An HTTP address on 127.0.0.1 that accepts connections and never says a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            held.append(conn)  # kept open, never answered

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/market.git"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


@pytest.mark.req("PG7")
def test_a_git_server_that_hangs_times_out_with_one_line(
    project: Path, silent_server: str, isolated_home: Path
) -> None:
    env = {"WAVE_PLUGIN_GIT_TIMEOUT_MS": "1500"}
    code, out, err = wave(project, "marketplace", "add", silent_server, env=env)
    assert code == 1 and out == ""
    assert err == (
        f"wave: marketplace {silent_server}: git gave no answer within 1.5 s "
        "(WAVE_PLUGIN_GIT_TIMEOUT_MS)\n"
    )
    assert list((plugins_dir(isolated_home) / "marketplaces").iterdir()) == []
    assert not (plugins_dir(isolated_home) / "known_marketplaces.json").exists()


@pytest.mark.req("PG5")
def test_usage_problems_exit_2(project: Path) -> None:
    code, _out, err = wave(project, "install")
    assert code == 2 and "NAME@MARKET" in err
    code, _out, err = wave(project, "install", "a@b", "--scope", "team")
    assert code == 2 and "invalid choice" in err


@pytest.mark.req("PG1")
@pytest.mark.req("PG4")
def test_a_plugin_without_manifest_under_the_market_plugin_root_installs(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """Claude Code's manifest is optional (its own `plugin-dev` has none): the market entry names
    the plugin; `metadata.pluginRoot` is prepended to a bare source."""
    market = tmp_path / "m"
    write(market / "plugins" / "bare" / "commands" / "go.md", "Go $ARGUMENTS")
    write(
        market / "plugins" / "bare" / "skills" / "plugin-structure" / "SKILL.md",
        "---\nname: Plugin Structure\ndescription: How plugins are laid out\n---\nBody",
    )
    write_json(
        market / ".claude-plugin" / "marketplace.json",
        {
            "name": "rooted",
            "owner": {"name": "o"},
            "metadata": {"pluginRoot": "./plugins"},
            "plugins": [{"name": "bare", "source": "bare", "version": "0.1.0"}],
        },
    )
    ok(project, "marketplace", "add", str(market))
    assert (
        ok(project, "install", "bare@rooted")
        == "Installed bare@rooted 0.1.0 (user scope, enabled)\n"
    )
    proc = run_wave("-p", "/help", cwd=project, env={"WAVE_BASE_URL": "http://127.0.0.1:9/v1"})
    assert proc.returncode == 0, proc.stderr
    assert "/bare:go" in proc.stdout
    assert "/bare:plugin-structure" in proc.stdout  # a display name with spaces: its folder


@pytest.mark.req("FH10")
def test_two_enabled_plugins_of_one_name_say_which_is_not_loaded(
    project: Path, tmp_path: Path
) -> None:
    for market in ("first", "second"):
        root = tmp_path / market
        make_plugin(root / "plugins" / "alpha", "alpha")
        make_market(root, market, [{"name": "alpha", "source": "./plugins/alpha"}])
        ok(project, "marketplace", "add", str(root))
        ok(project, "install", f"alpha@{market}")
    rows = {r["marketplace"]: r for r in json.loads(ok(project, "list", "--json"))}
    assert rows["first"]["enabled"] and rows["second"]["enabled"]
    assert "shadowedBy" not in rows["first"]
    assert rows["second"]["shadowedBy"] == "alpha@first"
    listing = ok(project, "list")
    assert "alpha@second" in listing and "not loaded: alpha@first has the same name" in listing
