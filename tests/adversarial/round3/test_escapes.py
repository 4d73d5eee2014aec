"""Control sequences that did not come from wave never reach the terminal raw: model text,
`!cmd` output and tool output in the app; stdout and stderr of `wave -p` and its warnings,
`wave memory list` and `wave memory show`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import BuildApp, server_env
from tests.tui.helpers import settle, wait_until
from tests.wave_cli import run_wave
from wave_tui.agent import events as ev
from wave_tui.config.terminal_text import neutralise
from wave_tui.tui.app import WaveApp

SEQUENCES = {
    "osc-title": "\x1b]0;pwned\x07",
    "osc-clipboard": "\x1b]52;c;cm0gLXJmIH4=\x1b\\",
    "csi-clear": "\x1b[2J\x1b[H",
    "csi-cursor-up": "\x1b[1A\x1b[2K",
    "c1-csi": "\x9b2J",
    "carriage-return": "rm -rf ~\rls -la   ",
    "bidi-override": "ls \u202e fr- mr",
    "bell-backspace": "\x07\x08\x08",
}
RAW = ("\x1b", "\x9b", "\x07", "\x08", "\r", "\u202e")


def raw_in(output: str) -> list[str]:
    return [c for c in RAW if c in output]


@pytest.mark.parametrize("seq", SEQUENCES.values(), ids=SEQUENCES.keys())
def test_neutralise_leaves_no_control_character(seq: str) -> None:
    shown = neutralise(f"before {seq} after\n\tnext")
    assert raw_in(shown) == []
    assert shown.startswith("before ") and shown.endswith(" after\n\tnext")


@pytest.mark.parametrize("seq", SEQUENCES.values(), ids=SEQUENCES.keys())
def test_wave_p_prints_model_text_neutralised(
    model_server: ModelServer, project: Path, seq: str
) -> None:
    model_server.enqueue(text(f"answer {seq} end"))
    result = run_wave("-p", "hi", cwd=project, server=model_server)
    assert result.returncode == 0, result.stderr
    assert "answer" in result.stdout and raw_in(result.stdout) == []


@pytest.mark.parametrize("seq", SEQUENCES.values(), ids=SEQUENCES.keys())
def test_wave_p_warnings_are_neutralised(
    model_server: ModelServer, project: Path, seq: str
) -> None:
    name = seq.replace(" ", "_").replace("\r", "\x1b")
    (project / "AGENTS.md").write_text(f"Notes.\n@docs/{name}.md\n")
    model_server.enqueue(text("ok"))
    result = run_wave("-p", "hi", cwd=project, server=model_server)
    assert "imports not loaded" in result.stderr
    assert raw_in(result.stderr) == []


@pytest.mark.parametrize("seq", SEQUENCES.values(), ids=SEQUENCES.keys())
def test_wave_memory_list_and_show_are_neutralised(project: Path, seq: str) -> None:
    (project / "AGENTS.md").write_text(f"# Notes\n\n- remember {seq} this\n")
    listed = run_wave("memory", "list", cwd=project)
    assert listed.returncode == 0, listed.stderr
    assert "remember" in listed.stdout and raw_in(listed.stdout) == []


def screen_text(app: WaveApp) -> str:
    return app.export_screenshot()


@pytest.mark.parametrize(
    "seq",
    [SEQUENCES["osc-title"], SEQUENCES["csi-clear"], SEQUENCES["c1-csi"]],
    ids=["osc-title", "csi-clear", "c1-csi"],
)
async def test_the_app_shows_model_shell_and_tool_text_neutralised(
    build_app: BuildApp, model_server: ModelServer, project: Path, seq: str
) -> None:
    (project / "evil.txt").write_text(f"file {seq} text\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "evil.txt"}),
        text(f"model {seq} text"),
    )
    app = build_app(server_env(model_server))
    seen: list[ev.AgentEvent] = []
    async with app.run_test(size=(100, 32)) as pilot:
        original = app.post_message

        def spy(message: object) -> bool:
            event = getattr(message, "event", None)
            if event is not None:
                seen.append(event)
            return original(message)  # type: ignore[arg-type]

        app.post_message = spy  # type: ignore[method-assign]
        printf = seq.encode("unicode_escape").decode().replace("\\x", "\\x")
        app.chat_screen.query_one("#prompt").insert(f"!printf 'shell {printf} out'")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_until(pilot, lambda: any(isinstance(e, ev.ShellFinished) for e in seen))
        app.chat_screen.query_one("#prompt").insert("read it")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot)
        shown = screen_text(app)
    assert "model" in shown
    texts = [str(e) for e in seen]
    assert any("shell" in t for t in texts) and any("file" in t for t in texts)
    assert all(raw_in(t) == [] for t in texts), [t for t in texts if raw_in(t)]
    assert raw_in(shown) == []
