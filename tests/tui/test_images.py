"""Images in the app (IM2, IM3, IM7): a pasted image path becomes `@path` and attaches, Ctrl+V
takes the clipboard's image through xclip (or says what is missing), the chat shows each image
with its name and size."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from textual import events

from tests import image_files as img
from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import fixed_clock, server_env
from tests.tui.helpers import settle, wait_until
from wave_tui.agent.service import AgentOptions
from wave_tui.session.factory import create_service
from wave_tui.tui.app import WaveApp, make_app
from wave_tui.tui.widgets.chat_items import NoticeLine, ToolBlock, UserMessage
from wave_tui.tui.widgets.history_input import HistoryInput


def app_for(project: Path, environ: dict[str, str]) -> WaveApp:
    service = create_service(
        AgentOptions(workdir=project, environ={**environ, "WAVE_DISABLE_AUTO_MEMORY": "1"})
    )
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    return app


def shown(app: WaveApp, kind: type) -> list[str]:
    return [str(w.render()) for w in app.chat_screen.query(kind)]


@pytest.mark.req("IM2")
@pytest.mark.req("IM7")
async def test_a_pasted_image_path_attaches_the_image_and_the_chat_names_it(
    model_server: ModelServer, project: Path
) -> None:
    img.png(project / "my shot.png", (320, 200))
    app = app_for(project, server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        await pilot.press(*"what is this ")
        # A terminal's drag-and-drop: the path quoted, as the driver delivers a paste.
        app.post_message(events.Paste(f"'{project / 'my shot.png'}'"))
        await pilot.pause()
        assert prompt.value == f"what is this @{project}/my\\ shot.png "
        app.post_message(events.Paste("plain words"))  # anything else pastes as it is
        await pilot.pause()
        assert prompt.value.endswith("plain words")
        await pilot.press("enter")
        await settle(pilot)
        (line,) = shown(app, UserMessage)
    assert "(image: my shot.png, 320×200" in line
    user = model_server.requests[0].body["messages"][-1]
    (url,) = img.image_urls(user)
    assert img.decode(url)[2].size == (320, 200)


@pytest.mark.req("IM7")
async def test_a_read_image_shows_its_name_and_size_in_the_tool_block(
    model_server: ModelServer, project: Path
) -> None:
    img.screenshot_png(project / "ui.png", (2400, 1200))
    model_server.enqueue(tool_call("Read", {"file_path": "ui.png"}), text("seen"))
    app = app_for(project, server_env(model_server))
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.press(*"look", "enter")
        await settle(pilot)
        (block,) = app.chat_screen.query(ToolBlock)
        assert "ui.png, 2400×1200 (sent as 2000×1000 PNG" in block.status


def fake_xclip(folder: Path, image: Path | None) -> Path:
    """An `xclip` on PATH that serves `image` as the clipboard's image/png (or holds text)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "xclip"
    targets = "TARGETS\nimage/png" if image else "TARGETS\nUTF8_STRING"
    script.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        f'  *TARGETS*) printf "{targets}\\n" ;;\n'
        f'  *image/png*) cat "{image}" ;;\n'
        "  *) exit 1 ;;\n"
        "esac\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


@pytest.mark.req("IM3")
async def test_ctrl_v_attaches_the_clipboard_image(
    model_server: ModelServer, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    source = img.png(tmp_path / "clip.png", (90, 60))
    tools = fake_xclip(tmp_path / "bin", source)
    env = {**server_env(model_server), "PATH": f"{tools}:{os.environ['PATH']}", "DISPLAY": ":0"}
    app = app_for(project, env)
    async with app.run_test(size=(100, 32)) as pilot:
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        await pilot.press(*"see ", "ctrl+v")
        await wait_until(pilot, lambda: "@" in prompt.value)
        assert prompt.value.startswith(f"see @{isolated_home}/.wave/pasted-images/paste-")
        await pilot.press("enter")
        await settle(pilot)
    (url,) = img.image_urls(model_server.requests[0].body["messages"][-1])
    assert img.decode(url)[2].size == (90, 60)


@pytest.mark.req("IM3")
async def test_ctrl_v_without_a_clipboard_tool_says_what_is_missing(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "nothing"
    empty.mkdir()
    app = app_for(project, {**server_env(model_server), "PATH": str(empty)})
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("ctrl+v")
        await wait_until(pilot, lambda: bool(shown(app, NoticeLine)))
        lines = shown(app, NoticeLine)
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        assert prompt.value == ""
    assert len(lines) == 1 and "wl-paste" in lines[0] and "xclip" in lines[0]
    assert model_server.requests == []


@pytest.mark.req("IM3")
async def test_ctrl_v_with_text_on_the_clipboard_says_there_is_no_image(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    tools = fake_xclip(tmp_path / "bin", None)
    env = {**server_env(model_server), "PATH": f"{tools}:{os.environ['PATH']}"}
    app = app_for(project, env)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("ctrl+v")
        await wait_until(pilot, lambda: bool(shown(app, NoticeLine)))
        assert shown(app, NoticeLine) == ["image: the clipboard holds no image"]
