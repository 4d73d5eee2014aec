"""The command line and its pipes: piped text after the prompt (CV7), a closed stdout ends any
command quietly (CV12), `wave --help` lists every command, `python -m wave_tui.cli.main`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wave_cli import WAVE, run_wave
from tests.wire_view import parts
from wave_tui.cli.headless import PIPED_CUT_NOTE, PIPED_MAX_BYTES
from wave_tui.cli.main import build_parser, usage_line
from wave_tui.cli.mcp_cmd import mcp_parser
from wave_tui.cli.memory_cmd import command_parsers
from wave_tui.cli.process import EXIT_CLOSED_PIPE
from wave_tui.cli.sessions_cmd import command_parsers as sessions_parsers

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def wave_with_stdin(
    *args: str, stdin: bytes, cwd: Path, server: ModelServer
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [*WAVE, *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env={**server.env(), "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    )


def user_text(server: ModelServer) -> str:
    (chat,) = [r for r in server.requests if r.path.endswith("/chat/completions")]
    last = chat.body["messages"][-1]
    assert last["role"] == "user"
    return parts(last)[-1]


# -- CV7: cat FILE | wave -p PROMPT ------------------------------------------------------------


@pytest.mark.req("CV7")
def test_cv7_piped_text_follows_the_prompt(model_server: ModelServer, project: Path) -> None:
    (project / "notes.txt").write_text("line one\nline two\n")
    model_server.enqueue(text("Two lines."))
    env = {**model_server.env(), "PYTHONPATH": str(ROOT)}

    proc = subprocess.run(
        ["bash", "-c", f'cat notes.txt | {" ".join(WAVE)} -p "summarise stdin"'],
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=60,
    )

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Two lines.\n" and proc.stderr == ""
    assert user_text(model_server) == "summarise stdin\n\nline one\nline two"


@pytest.mark.req("CV7")
@pytest.mark.parametrize("piped", [b"", b"\n  \n"], ids=["empty", "blank"])
def test_cv7_an_empty_pipe_changes_nothing(
    piped: bytes, model_server: ModelServer, project: Path
) -> None:
    proc = wave_with_stdin("-p", "just this", stdin=piped, cwd=project, server=model_server)

    assert proc.returncode == 0, proc.stderr
    assert user_text(model_server) == "just this"


@pytest.mark.req("CV7")
def test_cv7_piped_text_is_cut_at_1_mib_on_a_character_boundary_with_a_note(
    model_server: ModelServer, project: Path
) -> None:
    # An odd first byte puts the 1 MiB boundary inside a two-byte "é".
    piped = ("x" + "é" * PIPED_MAX_BYTES).encode()

    proc = wave_with_stdin("-p", "count", stdin=piped, cwd=project, server=model_server)

    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "wave: warning: standard input is over 1 MiB; only its first MiB is sent"
    ]
    sent = user_text(model_server)
    body, note = sent.removeprefix("count\n\n").rsplit("\n\n", 1)
    assert note == PIPED_CUT_NOTE
    assert body == "x" + "é" * ((PIPED_MAX_BYTES - 1) // 2)  # the split "é" is left out
    assert "\ufffd" not in sent


@pytest.mark.req("CV7")
def test_cv7_stdin_alone_is_still_the_prompt(model_server: ModelServer, project: Path) -> None:
    proc = wave_with_stdin("-p", stdin=b"the whole prompt\n", cwd=project, server=model_server)

    assert proc.returncode == 0, proc.stderr
    assert user_text(model_server) == "the whole prompt\n"


# -- CV12: a closed stdout ends every command quietly ---------------------------------------

COMMANDS = [
    ["memory", "runs"],
    ["memory", "list", "--json"],
    ["memory", "list"],
    ["memory", "inbox"],
    ["memory", "search", "x"],
    ["memory", "--help"],
    ["context"],
    ["context", "--json"],
    ["--version"],
    ["--help"],
    ["-p", "hi"],
    ["-p", "hi", "--output-format", "json"],
    ["-p", "hi", "--output-format", "stream-json"],
]


# The commands whose own error handling took the closed pipe for a failed write (exit 1).
LISTINGS = [
    ["sessions", "list"],
    ["sessions", "list", "--json"],
    ["plugin", "list"],
    ["plugin", "list", "--json"],
    ["mcp", "list"],
]


@pytest.mark.req("CV12")
@pytest.mark.req("FH10")
@pytest.mark.parametrize("argv", LISTINGS, ids=" ".join)
def test_fh10_listings_into_a_closed_pipe_end_quietly(
    argv: list[str], model_server: ModelServer, project: Path
) -> None:
    test_cv12_a_closed_stdout_ends_the_command_quietly(argv, model_server, project)


@pytest.mark.req("CV12")
@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_cv12_a_closed_stdout_ends_the_command_quietly(
    argv: list[str], model_server: ModelServer, project: Path
) -> None:
    """Writing to a pipe whose reader has gone: no traceback, exit 141 (128 + SIGPIPE, as
    `git log` under `set -o pipefail`), nothing on stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before wave writes a byte
    try:
        proc = subprocess.run(
            [*WAVE, *argv],
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=project,
            env={**model_server.env(), "PYTHONPATH": str(ROOT)},
            timeout=60,
        )
    finally:
        os.close(write_end)

    assert proc.stderr == ""
    assert proc.returncode == EXIT_CLOSED_PIPE


@pytest.mark.req("CV12")
def test_cv12_stream_json_into_head_stops_the_run_quietly(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    """`wave -p … --output-format stream-json | head -1`: head takes the init line and goes;
    the next line meets the closed pipe. The reply is held until head has gone, so the order is
    certain."""
    release = threading.Event()
    model_server.enqueue(text("a long answer", hold=release))
    closed = tmp_path / "reader-closed"
    script = (
        "set -o pipefail; "
        f"{' '.join(WAVE)} -p go --output-format stream-json 2>{tmp_path / 'err'} "
        f"| {{ head -1 >{tmp_path / 'first'}; exec 0<&-; touch {closed}; }}"
    )
    shell = subprocess.Popen(
        ["bash", "-c", script],
        cwd=project,
        env={**model_server.env(), "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
    )
    try:
        model_server.wait_for_requests(1, timeout=60)
        while not closed.exists():
            assert shell.poll() is None, "the pipeline ended before head closed its end"
            release.wait(0.05)
        release.set()
        status = shell.wait(60)
    finally:
        release.set()
        if shell.poll() is None:
            shell.kill()

    assert json.loads((tmp_path / "first").read_text())["subtype"] == "init"
    assert (tmp_path / "err").read_text() == ""
    assert status == EXIT_CLOSED_PIPE


@pytest.mark.req("CV12")
def test_cv12_a_long_listing_into_head_ends_quietly(project: Path) -> None:
    """`wave memory list --json | head -1` with more output than the pipe holds."""
    (project / "AGENTS.md").write_text(
        "".join(f"- rule number {i}: {'always write tests ' * 5}\n" for i in range(4000))
    )
    proc = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {' '.join(WAVE)} memory list --json | head -1"],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )

    assert proc.stdout == "[\n"
    assert proc.stderr == ""
    assert proc.returncode == EXIT_CLOSED_PIPE


# -- wave --help lists every command ------------------------------------------------------------


def test_help_lists_every_command_with_its_description(project: Path) -> None:
    proc = run_wave("--help", cwd=project, env={"COLUMNS": "200"})

    assert proc.returncode == 0, proc.stderr
    commands: list[str] = []  # one entry per command, its wrapped description joined
    for line in proc.stdout.split("\ncommands:\n", 1)[1].splitlines():
        if line.startswith("  wave "):
            commands.append(line)
        else:
            commands[-1] += " " + line.strip()
    expected = [(usage_line(p), text) for p, text in command_parsers()]
    expected.append(("wave context [--json] [--workdir WORKDIR] [-c]", "what the next request"))
    expected += [(usage_line(p), text) for p, text in sessions_parsers()]
    expected.append((usage_line(mcp_parser()), "MCP servers: list, get, add"))
    expected.append(("wave plugin [--workdir WORKDIR] ACTION ...", "install, enable and update"))
    expected.append(("wave daemon COMMAND ...", "background sessions: create, send, status"))
    assert len(commands) == len(expected)
    for line, (usage, description) in zip(commands, expected, strict=True):
        assert line.startswith(f"  {usage} ") and description in " ".join(line.split()), line
    names = {line.split()[2] for line in commands if line.startswith("  wave memory ")}
    assert names == {
        "list", "show", "delete", "add", "runs", "revert", "inbox", "accept", "reject", "search",
        "check", "consolidate", "audit", "mode",
    }  # fmt: skip


def test_the_help_of_the_parser_in_process_has_the_commands() -> None:
    assert "\ncommands:\n  wave memory list" in build_parser().format_help()


# -- python -m wave_tui.cli.main ----------------------------------------------------------------


def test_the_module_runs_as_a_program_with_stdin_as_the_prompt(
    model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(text("read it"))
    proc = subprocess.run(
        [sys.executable, "-m", "wave_tui.cli.main", "-p", "-"],
        input="from stdin",
        capture_output=True,
        text=True,
        cwd=project,
        env={**model_server.env(), "PYTHONPATH": str(ROOT)},
        timeout=60,
    )

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "read it\n"
    assert user_text(model_server) == "from stdin"
