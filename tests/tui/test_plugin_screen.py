"""`/plugin` used from the keyboard: markets, a market's plugins with their descriptions, install,
the installed list, enable / disable, update — and the background refresh on opening that fetches
a git market's listing without upgrading what is installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from tests.features.plugins.builders import file_url, git_market, make_market, make_plugin
from tests.tui.command_ui_helpers import extended_app, wait_for_screen
from wave_tui.config.paths import WavePaths
from wave_tui.session.plugins import PluginAccess
from wave_tui.tui.screens.plugins import PluginScreen


def shown(pilot: Pilot[None]) -> list[str]:
    options = pilot.app.screen.query_one("#plugin-list", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def status(pilot: Pilot[None]) -> str:
    return str(pilot.app.screen.query_one("#plugin-status", Static).render())


async def done(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def enabled(home: Path) -> dict[str, bool]:
    data = json.loads((home / ".wave" / "settings.json").read_text())
    result: dict[str, bool] = data["enabledPlugins"]
    return result


@pytest.mark.req("PG8")
async def test_the_plugin_screen_installs_enables_and_updates_from_the_keyboard(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    folder = tmp_path / "folder"
    make_plugin(folder / "plugins" / "alpha", "alpha")
    make_plugin(folder / "plugins" / "beta", "beta", layout=".wave-plugin")
    make_market(
        folder,
        "local",
        [
            {"name": "alpha", "source": "./plugins/alpha", "description": "Alpha does A"},
            {"name": "beta", "source": "./plugins/beta", "description": "Beta does B"},
        ],
    )
    repo = git_market(tmp_path / "repo", "remote", "gamma", "1.0.0")
    access = PluginAccess(WavePaths.for_workdir(project))
    await access.add_market(str(folder), project)
    await access.add_market(file_url(repo), project)
    await access.install("alpha@local")
    await access.install("gamma@remote")
    git_market(repo, "remote", "gamma", "2.0.0")  # published after the install

    app = extended_app(project)
    async with app.run_test(size=(110, 36)) as pilot:
        await pilot.press(*"/plugin", "enter")
        await wait_for_screen(pilot, PluginScreen)
        await done(pilot)
        assert status(pilot) == "Marketplaces up to date"  # the git market was fetched ...
        listing = (
            isolated_home / ".wave/plugins/marketplaces/remote/.claude-plugin/marketplace.json"
        )
        assert json.loads(listing.read_text())["plugins"][0]["version"] == "2.0.0"
        assert [r.version for r in access.installed() if r.name == "gamma"] == ["1.0.0"]  # ... only
        assert [s.split("  ")[0] for s in shown(pilot)] == ["local", "remote"]

        await pilot.press("enter")  # the folder market's plugins
        await done(pilot)
        rows = shown(pilot)
        assert rows[0].startswith("alpha  installed 1.0.0, enabled") and "Alpha does A" in rows[0]
        assert rows[1].startswith("beta  not installed") and "Beta does B" in rows[1]
        await pilot.press("down", "i")
        await done(pilot)
        assert status(pilot) == "Installed beta@local 1.0.0: enabled from the next turn"
        assert enabled(isolated_home)["beta@local"] is True

        await pilot.press("escape", "tab")  # back to the markets, then the installed list
        await done(pilot)
        assert [s.split("  ")[0] for s in shown(pilot)] == [
            "alpha@local",
            "gamma@remote",
            "beta@local",
        ]
        await pilot.press("e")  # the first row: alpha
        await done(pilot)
        assert enabled(isolated_home)["alpha@local"] is False
        assert shown(pilot)[0] == "alpha@local  1.0.0  user  disabled"

        await pilot.press("down", "u")
        await done(pilot)
        assert status(pilot) == "gamma@remote: 1.0.0 → 2.0.0"
        assert shown(pilot)[1] == "gamma@remote  2.0.0  user  enabled"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(pilot.app.screen, PluginScreen)
