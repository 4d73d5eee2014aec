"""The permission dialog as a user meets it: what will run (a long Bash command with its
description and background flag, an MCP tool's arguments, who asks), choices that stay on screen
at 80×24 and 120×40, the prefix grant that really lets the next matching call run, and a denial
with the user's reason that reaches the model (CV10, CV15)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from tests.model_server import ModelServer, text, tool_call
from tests.tui.command_ui_helpers import wait_for_screen
from tests.tui.conftest import BuildApp, fixed_clock, server_env
from tests.tui.helpers import settle
from tests.wire_view import chats, tool_results
from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentOptions
from wave_tui.session.factory import create_service
from wave_tui.tui.app import WaveApp, make_app
from wave_tui.tui.screens.dialogs import PermissionDialog

LONG_COMMAND = " && ".join(
    f"printf 'step {n}: building the release artefacts for target number {n}\\n' >> build.log"
    for n in range(40)
)


def dialog_text(dialog: PermissionDialog) -> str:
    return "\n".join(str(s.visual) for s in dialog.query(Static))


async def assert_choices_on_screen(pilot: Pilot[None], dialog: PermissionDialog) -> list[str]:
    """Every choice of the dialog is drawn where a user sees it (not cut by the dialog or the
    screen): the widget under its first cell is the button itself."""
    await pilot.pause()
    screen = pilot.app.screen.region
    labels = []
    for button in dialog.query(Button):
        region = button.region
        assert region.height >= 1 and screen.contains_region(region), (button.id, region)
        under, _ = dialog.get_widget_at(region.x + 1, region.y)
        assert under is button, (button.id, region, under)
        labels.append(str(button.label))
    return labels


@pytest.mark.req("CV10")
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_cv10_a_long_background_bash_command_keeps_every_choice_on_screen(
    build_app: BuildApp, model_server: ModelServer, size: tuple[int, int]
) -> None:
    """A 40-part command: the body scrolls, Allow / Always / Deny / say why stay visible; the
    description and the background flag are shown."""
    model_server.enqueue(
        tool_call(
            "Bash",
            {
                "command": LONG_COMMAND,
                "description": "Write the release build log",
                "run_in_background": True,
            },
        ),
        text("ok"),
    )
    app = build_app(server_env(model_server))
    async with app.run_test(size=size) as pilot:
        await pilot.press(*"build", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        assert isinstance(dialog, PermissionDialog)
        shown = dialog_text(dialog)
        assert "Write the release build log" in shown
        assert "runs in the background" in shown
        assert LONG_COMMAND in shown
        labels = await assert_choices_on_screen(pilot, dialog)
        assert any("Allow once" in label for label in labels)
        assert any("Deny" in label for label in labels)
        assert any("say why" in label for label in labels)
        await pilot.press("n")
        await settle(pilot)


@pytest.mark.req("CV10")
async def test_cv10_an_mcp_tool_dialog_shows_every_argument(build_app: BuildApp) -> None:
    app = build_app()
    args = {"path": "/srv/data/report.csv", "mode": "overwrite", "rows": [1, 2, 3]}
    async with app.run_test(size=(80, 24)) as pilot:
        future: asyncio.Future[ev.PermissionReply] = asyncio.get_running_loop().create_future()
        reason = "mcp__files__write is an MCP tool: it needs approval unless allowed"
        app.session._emit(ev.PermissionRequested("mcp__files__write", args, reason, future))
        dialog = await wait_for_screen(pilot, PermissionDialog)
        assert isinstance(dialog, PermissionDialog)
        shown = dialog_text(dialog)
        for line in json.dumps(args, indent=2).splitlines():
            assert line in shown
        await assert_choices_on_screen(pilot, dialog)
        await pilot.press("y")
        await pilot.pause()
        assert future.result() == ev.PermissionAnswer("allow_once")


def git(project: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=project, check=True, capture_output=True, text=True
    ).stdout


@pytest.mark.req("CV10")
async def test_cv10_always_for_the_prefix_lets_the_next_matching_command_run_unasked(
    build_app: BuildApp, model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """`git commit -m one` offers `Bash(git commit:*)`; chosen, `git commit -m two` runs
    without a dialog, and `git tag` (another subcommand) still asks."""
    (isolated_home / ".gitconfig").write_text("[user]\n\tname = T\n\temail = t@example.com\n")
    git(project, "init", "-q")
    model_server.enqueue(
        tool_call("Bash", {"command": "git commit -q --allow-empty -m one"}),
        tool_call("Bash", {"command": "git commit -q --allow-empty -m two"}),
        tool_call("Bash", {"command": "git tag v1"}),
        text("committed"),
    )
    app = build_app(server_env(model_server))
    asked: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.session.subscribe(
            lambda e: (
                asked.append(e.args["command"]) if isinstance(e, ev.PermissionRequested) else None
            )
        )
        await pilot.press(*"commit twice", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        assert isinstance(dialog, PermissionDialog)
        labels = await assert_choices_on_screen(pilot, dialog)
        assert any("Always allow Bash(git commit:*) this session" in label for label in labels)
        assert any("Always allow Bash(git commit -q --allow-empty -m one)" in x for x in labels)
        await pilot.press("a")
        third = await wait_for_screen(pilot, PermissionDialog)
        assert third is not dialog
        await pilot.press("n")
        await settle(pilot)
        assert app.session.permissions.state().session_grants == ("Bash(git commit:*)",)  # type: ignore[union-attr]
    assert asked == ["git commit -q --allow-empty -m one", "git tag v1"]
    assert git(project, "log", "--format=%s").split() == ["two", "one"]


@pytest.mark.req("CV15")
async def test_cv15_no_and_say_why_sends_the_reason_with_the_refusal(
    build_app: BuildApp, model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(tool_call("Bash", {"command": "rm -rf build"}), text("understood"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"clean", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        await pilot.press("w")
        await pilot.pause()
        field = dialog.query_one("#deny-reason", Input)
        assert field.has_focus
        await assert_choices_on_screen(pilot, dialog)  # type: ignore[arg-type]
        await pilot.press(*"yes, always use make clean: never rm", "enter")  # y a n w e typed
        await settle(pilot)
    (result,) = tool_results(chats(model_server)[-1])
    assert result.startswith("Permission denied by the user for this Bash call.")
    assert result.endswith("\nyes, always use make clean: never rm")


@pytest.mark.req("CV10")
async def test_cv10_a_subagents_permission_dialog_names_the_agent(
    model_server: ModelServer, project: Path
) -> None:
    service = create_service(
        AgentOptions(
            workdir=project,
            environ={**server_env(model_server), "WAVE_DISABLE_AUTO_MEMORY": "1"},
            clock=fixed_clock,
        )
    )
    app: WaveApp = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"

    def child(body: dict[str, Any]) -> bool:
        return "You are a subagent" in json.dumps(body["messages"][0])

    model_server.enqueue(tool_call("Bash", {"command": "touch made.txt"}), text("ok"), when=child)
    model_server.enqueue(
        tool_call(
            "Agent",
            {
                "description": "Create the marker",
                "prompt": "touch",
                "subagent_type": "general-purpose",
            },
        ),
        text("done"),
        when=lambda body: not child(body),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"delegate", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        assert isinstance(dialog, PermissionDialog)
        shown = dialog_text(dialog)
        assert "general-purpose" in shown and "Create the marker" in shown
        await pilot.press("y")
        await settle(pilot)
    assert (project / "made.txt").exists()


@pytest.mark.req("CV1", "CV10")
async def test_keys_typed_as_a_dialog_opens_go_on_into_the_message_not_the_dialog(
    build_app: BuildApp,
    model_server: ModelServer,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A user still typing when a permission dialog opens: "and also" pressed `a` (Always
    allow, for a command never read) and the rest was lost. The keys go on into the input
    until the user pauses; then the dialog takes its keys."""
    from wave_tui.tui import typed_ahead
    from wave_tui.tui.widgets.history_input import HistoryInput

    # Real pauses, generous for a loaded machine; the test ends them itself (below).
    monkeypatch.setattr(typed_ahead, "TYPING_PAUSE_S", 30.0)
    monkeypatch.setattr(typed_ahead, "READING_S", 30.0)
    model_server.enqueue(tool_call("Bash", {"command": "touch made.txt"}), text("done"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        await pilot.press(*"make it", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        await pilot.press(*"and alsx", "backspace", "o", "enter")  # typing on, as it opened
        assert app.screen is dialog  # no key answered it
        assert app.session.status().queue == ("and also",)  # the message, as typed, queued
        await pilot.press(*"then")
        assert prompt.text == "then"
        prompt.last_key_at = float("-inf")  # the user stopped typing (a pause) ...
        dialog.asked_at = float("-inf")  # ... and has read the dialog
        await pilot.press("n")
        await settle(pilot)
    assert not (project / "made.txt").exists()  # denied by the key meant for it, not run
    assert prompt.text == "then"


@pytest.mark.req("FH3")
async def test_escape_refuses_the_call_and_stops_the_turn(
    build_app: BuildApp, model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(tool_call("Bash", {"command": "touch esc.txt"}), text("went on anyway"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"make it", "enter")
        await wait_for_screen(pilot, PermissionDialog)
        await pilot.press("escape")
        await settle(pilot)
        assert not app.session.status().busy
        assert not isinstance(app.screen, PermissionDialog)
    assert len(chats(model_server)) == 1  # the model was not asked again
    assert not (project / "esc.txt").exists()
    # The call is answered in the history (the next turn's request stays well formed).
    assert [m.role for m in app.session.messages()][:3] == ["user", "assistant", "tool"]


@pytest.mark.req("FH3")
async def test_n_refuses_the_call_and_the_model_goes_on(
    build_app: BuildApp, model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(tool_call("Bash", {"command": "touch n.txt"}), text("adapted"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"make it", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        labels = await assert_choices_on_screen(pilot, dialog)  # type: ignore[arg-type]
        assert any("the model goes on" in label for label in labels)
        assert any("esc" in label and "stop the turn" in label for label in labels)
        await pilot.press("n")
        await settle(pilot)
    (result,) = tool_results(chats(model_server)[-1])
    assert result.startswith("Permission denied by the user for this Bash call.")
    assert not (project / "n.txt").exists()
