"""What the chat shows for commands and tools: `!cmd` as a live, stoppable command block (CV8),
Edit/Write as a coloured diff, Grep's paths relative to the project, restored tool rows with
their real summaries, finished background commands, custom commands as typed, and Thinking
blocks opened from the keyboard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Collapsible, Static

from tests.model_server import ModelServer, text, tool_call
from tests.processes import alive
from tests.tui.conftest import BuildApp, fixed_clock, server_env
from tests.tui.helpers import settle, wait_until
from wave_tui.config.paths import WavePaths
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.types import AgentOptions, AgentService
from wave_tui.tui.app import WaveApp, make_app
from wave_tui.tui.widgets.history_input import HistoryInput


def statics(app: WaveApp, selector: str) -> list[str]:
    """The text of every Static matching `selector` in the chat log."""
    log = app.chat_screen.query_one("#chat-log")
    return [str(s.content) for s in log.query(selector) if isinstance(s, Static)]


def chat_text(app: WaveApp) -> str:
    return "\n".join(statics(app, "Static"))


def full_app(project: Path, model_server: ModelServer) -> WaveApp:
    """The app over the fully wired service (custom commands, background commands), auto
    memory off (no extraction requests)."""
    environ = {**server_env(model_server), "WAVE_DISABLE_AUTO_MEMORY": "1"}
    service, _extras = create_service_with_extensions(
        AgentOptions(workdir=project, environ=environ, clock=fixed_clock)
    )
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    return app


def accept_edits(paths: WavePaths) -> None:
    """Edits run without asking (the user's settings), as after Shift+Tab."""
    paths.user_settings.parent.mkdir(parents=True, exist_ok=True)
    settings = {"permissions": {"defaultMode": "acceptEdits"}}
    paths.user_settings.write_text(json.dumps(settings), encoding="utf-8")


def prompt(app: WaveApp) -> HistoryInput:
    return app.chat_screen.query_one("#prompt", HistoryInput)


async def type_line(pilot: Pilot[None], line: str) -> None:
    prompt(pilot.app).insert(line)  # type: ignore[arg-type]
    await pilot.press("enter")


@pytest.mark.req("CV8")
async def test_cv8_bang_command_streams_esc_kills_its_process_group_and_typing_goes_on(
    build_app: BuildApp, model_server: ModelServer, project: Path
) -> None:
    """CV8: `!cmd` shows a spinner and its output while it runs; the input takes keys
    meanwhile; Esc kills the command's whole process group; what it printed joins the
    conversation as an interrupted run."""
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await type_line(pilot, "!echo started; sleep 30 & echo $! > sleep.pid; wait")
        pid_file = project / "sleep.pid"
        await wait_until(pilot, lambda: "started" in chat_text(app) and pid_file.exists())
        assert "started" in statics(app, ".shell-output")
        (header,) = statics(app, ".shell-header")
        assert "running" in header and "esc" in header
        sleeper = int(pid_file.read_text().strip() or "0")
        assert alive(sleeper)
        await pilot.press(*"typed meanwhile")
        assert prompt(app).text == "typed meanwhile"
        # Other screens open meanwhile: F2 shows the memory browser, F1 comes back.
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.screen is not app.chat_screen)
        assert app.screen is not app.chat_screen and alive(sleeper)
        await pilot.press("f1")
        await wait_until(pilot, lambda: app.screen is app.chat_screen)
        assert app.screen is app.chat_screen
        await pilot.press("escape")
        await wait_until(pilot, lambda: not alive(sleeper) and not app.session.status().busy)
        assert not alive(sleeper)  # the whole group: the backgrounded sleep too
        await settle(pilot)
        (header,) = statics(app, ".shell-header")
        assert "killed" in header and "running" not in header
        assert prompt(app).text == "typed meanwhile"
    (shell,) = [m for m in app.session.messages() if m.role == "user"]
    assert shell.content.startswith("I ran `echo started; sleep 30")
    assert "(interrupted)" in shell.content and "started" in shell.content
    assert not model_server.requests  # not a model turn


@pytest.mark.req("CV8")
async def test_cv8_a_message_sent_while_a_command_runs_waits_for_it(
    build_app: BuildApp, model_server: ModelServer, project: Path
) -> None:
    """CV8: the app stays usable while `!cmd` runs — a message sent meanwhile is queued, and
    the model gets the command's output before it."""
    model_server.enqueue(text("seen"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await type_line(pilot, "!echo waiting; while [ ! -f release ]; do sleep 0.05; done")
        await wait_until(pilot, lambda: "waiting" in chat_text(app))
        await type_line(pilot, "what did it print?")
        await wait_until(pilot, lambda: app.session.status().queue == ("what did it print?",))
        assert app.session.status().queue == ("what did it print?",)
        assert not model_server.requests
        (project / "release").write_text("")
        await wait_until(pilot, lambda: bool(model_server.requests))
        await settle(pilot)
    sent = "\n".join(
        text_of(m["content"])
        for m in model_server.last_request.body["messages"]
        if m["role"] == "user"
    )
    assert "I ran `echo waiting;" in sent and "waiting\n```" in sent
    assert sent.index("I ran `echo waiting;") < sent.index("what did it print?")


def text_of(content: object) -> str:
    """A wire message's text, whether a string or a list of text parts."""
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


async def test_bang_command_output_is_a_command_block_not_a_user_bubble(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """`!cmd`: the command, then its output verbatim, the exit code when not 0 — no user
    bubble with Markdown fences; the model still gets the fenced message."""
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await type_line(pilot, "!printf 'alpha\\nbeta\\n'; exit 3")
        await settle(pilot)
        assert statics(app, ".user-message") == []
        assert "```" not in chat_text(app)
        (header,) = statics(app, ".shell-header")
        assert header.startswith("$ printf 'alpha\\nbeta\\n'; exit 3") and "exit code 3" in header
        assert statics(app, ".shell-output") == ["alpha\nbeta"]
    (shell,) = app.session.messages()
    assert (
        shell.content
        == "I ran `printf 'alpha\\nbeta\\n'; exit 3` (exit code 3):\n```\nalpha\nbeta\n```"
    )


def line_styles(content: Content) -> dict[str, str]:
    """Each line of a rendered Content with the style of the span that covers it."""
    plain = content.plain
    styles: dict[str, str] = {}
    start = 0
    for line in plain.split("\n"):
        end = start + len(line)
        covering = [str(s.style) for s in content.spans if s.start <= start and s.end >= end]
        styles[line] = " ".join(covering)
        start = end + 1
    return styles


async def test_an_edit_shows_a_coloured_diff_not_the_raw_tool_text(
    build_app: BuildApp, model_server: ModelServer, project: Path, paths: WavePaths
) -> None:
    """Edit (and Write over an existing file): the tool block shows the change, removed lines
    red and added lines green, open; the tool's own text is not shown."""
    target = project / "app.py"
    target.write_text("a = 1\nb = 2\nc = 3\n", encoding="utf-8")
    model_server.enqueue(
        tool_call("Read", {"file_path": str(target)}),
        tool_call(
            "Edit", {"file_path": str(target), "old_string": "b = 2", "new_string": "b = 20"}
        ),
        tool_call("Write", {"file_path": str(target), "content": "a = 1\nc = 3\n"}),
        text("done"),
    )
    accept_edits(paths)
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 40)) as pilot:
        await type_line(pilot, "change b")
        await settle(pilot)
        assert target.read_text(encoding="utf-8") == "a = 1\nc = 3\n"
        log = app.chat_screen.query_one("#chat-log")
        diffs = [s for s in log.query(".tool-output-text.-diff") if isinstance(s, Static)]
        assert len(diffs) == 2
        edit, write = (line_styles(s.visual) for s in diffs)  # type: ignore[arg-type]
        assert "error" in edit["-b = 2"] and "success" in edit["+b = 20"]
        assert " a = 1" in edit and "error" not in edit[" a = 1"]
        assert "error" in write["-b = 20"]
        shown = chat_text(app)
        assert "The region around the first change" not in shown
        assert str(project) not in shown
        outputs = [b for b in log.query(".tool-output") if isinstance(b, Collapsible)]
        assert [o.collapsed for o in outputs if o.title == "diff"] == [False, False]


async def test_grep_shows_paths_relative_to_the_project(
    build_app: BuildApp, model_server: ModelServer, project: Path
) -> None:
    """Grep's output in the chat names files relative to the project; the model still gets
    the absolute paths."""
    (project / "src").mkdir()
    (project / "src" / "alpha.py").write_text("NEEDLE = 1\n", encoding="utf-8")
    model_server.enqueue(
        tool_call("Grep", {"pattern": "NEEDLE", "output_mode": "content"}),
        tool_call("Grep", {"pattern": "NEEDLE"}),
        text("found"),
    )
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await type_line(pilot, "find it")
        await settle(pilot)
        shown = statics(app, ".tool-output-text")
        assert shown == ["src/alpha.py:1:NEEDLE = 1", "src/alpha.py"]
    tools = [m for m in model_server.last_request.body["messages"] if m["role"] == "tool"]
    assert str(project / "src" / "alpha.py") in str(tools[0]["content"])


async def run_first_session(project: Path, environ: dict[str, str], *prompts: str) -> None:
    service = AgentService(AgentOptions(workdir=project, environ=environ, clock=fixed_clock))
    for prompt_ in prompts:
        await service.run_turn(prompt_)
    await service.destroy()


def continued_app(project: Path, environ: dict[str, str]) -> WaveApp:
    resumed = AgentService(
        AgentOptions(workdir=project, environ=environ, clock=fixed_clock, continue_last=True)
    )
    app = make_app(resumed.store, resumed, fixed_clock)
    app.animation_level = "none"
    return app


async def test_continue_shows_the_tool_summaries_diffs_and_commands_of_the_live_run(
    model_server: ModelServer, project: Path, paths: WavePaths
) -> None:
    """After `--continue` a tool row reads as it did live ("Read 3 lines", the Edit's diff, a
    failed call's error line), not `✓ done` / `✗ error`; a `!cmd` is its command block."""
    target = project / "notes.txt"
    target.write_text("one\ntwo\nthree\n", encoding="utf-8")
    model_server.enqueue(
        tool_call("Read", {"file_path": str(target)}),
        tool_call("Edit", {"file_path": str(target), "old_string": "two", "new_string": "TWO"}),
        tool_call("Read", {"file_path": str(project / "missing.txt")}),
        text("edited"),
    )
    accept_edits(paths)
    environ = server_env(model_server)
    await run_first_session(project, environ, "edit it", "!echo from-shell")
    app = continued_app(project, environ)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        headers = statics(app, ".tool-header")
        assert "✓ Read 3 lines" in headers[0]
        assert "✓ Edited file (1 replacement)" in headers[1]
        assert "✗ File does not exist" in headers[2]
        assert not any("✓ done" in h or "✗ error" in h for h in headers)
        diffs = statics(app, ".tool-output-text.-diff")
        assert diffs == ["@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three"]
        (shell,) = statics(app, ".shell-header")
        assert shell.startswith("$ echo from-shell")
        assert statics(app, ".shell-output") == ["from-shell"]
        assert statics(app, ".user-message") == ["edit it"]


async def test_a_finished_background_command_shows_a_notice_line(
    model_server: ModelServer, project: Path
) -> None:
    """A background command that finishes says so in the chat at once: its exit code and id,
    what the model is told before its next request."""
    model_server.enqueue(
        tool_call("Bash", {"command": "ls no-such-file", "run_in_background": True}),
        text("started it"),
    )
    app = full_app(project, model_server)
    async with app.run_test(size=(100, 32)) as pilot:
        await type_line(pilot, "run it in the background")
        await settle(pilot)

        def notices() -> list[str]:
            return [n for n in statics(app, ".notice-line") if n.startswith("background:")]

        await wait_until(pilot, lambda: bool(notices()))
        (notice,) = notices()
    (tool,) = [m for m in app.session.messages() if m.role == "tool"]
    task_id = tool.content.split("task id ")[1].split()[0]
    assert notice == f'background: "ls no-such-file" failed (exit code 2) · {task_id}'


async def test_a_custom_command_shows_what_was_typed_and_sends_its_body(
    model_server: ModelServer, isolated_home: Path, project: Path
) -> None:
    """`/review src/x.py` shows as typed, live and after `--continue`; the model gets the
    command's expanded body."""
    commands = isolated_home / ".wave" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("Review $ARGUMENTS with care.\n", encoding="utf-8")
    model_server.enqueue(text("reviewed"))
    app = full_app(project, model_server)
    async with app.run_test(size=(100, 32)) as pilot:
        await type_line(pilot, "/review src/x.py")
        await settle(pilot)
        assert statics(app, ".user-message") == ["/review src/x.py"]
    users = [m for m in model_server.last_request.body["messages"] if m["role"] == "user"]
    assert users[-1]["content"] == "Review src/x.py with care."
    again = continued_app(project, server_env(model_server))
    async with again.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        await again.workers.wait_for_complete()
        await pilot.pause()
        assert statics(again, ".user-message") == ["/review src/x.py"]


def thinking(app: WaveApp) -> Collapsible:
    return app.chat_screen.query_one(".reasoning", Collapsible)


async def test_thinking_opens_from_the_keyboard(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """A finished reply's Thinking is closed; Ctrl+O opens and closes it (the newest block
    to open), and focused, Enter and Space toggle it."""
    model_server.enqueue(text("the answer", reasoning="pondering the question"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await type_line(pilot, "think")
        await settle(pilot)
        block = thinking(app)
        assert block.collapsed
        await pilot.press("ctrl+o")
        assert not block.collapsed
        await pilot.press("ctrl+o")
        assert block.collapsed
        for _ in range(3):  # Tab from the input (nothing to complete) walks into the chat
            await pilot.press("tab")
            if app.focused is not None and app.focused.parent is block:
                break
        focused: Any = app.focused
        assert focused is not None and focused.parent is block
        await pilot.press("space")
        assert not block.collapsed
        await pilot.press("enter")
        assert block.collapsed


def test_path_listings_show_project_paths_relative_and_home_as_tilde(tmp_path: Path) -> None:
    """Grep/Glob lines as `show_path` shows paths: relative in the project, `~/…` under home,
    anything else as it is; other tools' output is left alone."""
    from wave_tui.tui.format import shown_tool_output  # here: the other tests run on any code

    home = tmp_path / "home"
    paths = WavePaths(project_root=home / "proj", home=home)
    output = "\n".join(
        [
            f"{home}/proj/src/a.py:12:x = 1",
            f"{home}/proj/src/a-2-b.py-13-context",
            "--",
            f"{home}/notes/todo.md:3",
            "/etc/hosts:1:127.0.0.1 localhost",
            f"{home}/proj/README.md",
        ]
    )
    assert shown_tool_output("Grep", output, paths).splitlines() == [
        "src/a.py:12:x = 1",
        "src/a-2-b.py-13-context",
        "--",
        "~/notes/todo.md:3",
        "/etc/hosts:1:127.0.0.1 localhost",
        "README.md",
    ]
    assert shown_tool_output("Glob", f"{home}/proj/x.py", paths) == "x.py"
    assert shown_tool_output("Bash", f"{home}/proj/x.py", paths) == f"{home}/proj/x.py"
