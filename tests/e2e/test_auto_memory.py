"""Auto memory through `wave -p`: A2 index caps, A4 safe zone, S5/S6 switch, A3/X3
work trees, X2 concurrent writers; and the staleness reminder T1–T5."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import dynamic_block as wire_dynamic_block
from wave_tui.config.paths import WavePaths
from wave_tui.memory.auto_memory import AutoMemoryDir
from wave_tui.memory.staleness import STALENESS_TEMPLATE

DAY = 86_400


def memory_dir(project: Path) -> Path:
    return WavePaths.for_workdir(project).memory_dir


def dynamic_block(server: ModelServer, index: int = 0) -> str:
    return wire_dynamic_block(server.requests[index].body)


def write_user_settings(home: Path, data: dict) -> None:
    (home / ".wave").mkdir(exist_ok=True)
    (home / ".wave" / "settings.json").write_text(json.dumps(data))


@pytest.mark.req("A1", "A2", "P1")
def test_session_start_creates_the_memory_dir_and_puts_the_index_in_the_prompt(
    model_server: ModelServer, project: Path
) -> None:
    """A1, A2, P1: the directory exists, the `# auto memory` section names it, MEMORY.md is in."""
    mem = memory_dir(project)
    mem.mkdir(parents=True)
    (mem / "MEMORY.md").write_text("- [Build](build.md) — run `make ci` before pushing\n")
    assert run_wave("-p", "hi", cwd=project, server=model_server).returncode == 0
    block = dynamic_block(model_server)
    assert "# auto memory" in block and str(mem) in block
    assert "run `make ci` before pushing" in block
    for kind in ("user", "feedback", "project", "reference"):
        assert kind in block


@pytest.mark.req("A2")
def test_index_of_250_lines_is_cut_at_200_with_a_warning(
    model_server: ModelServer, project: Path
) -> None:
    """A2: first 200 lines; the warning names the line cap and the dropped entries."""
    mem = memory_dir(project)
    mem.mkdir(parents=True)
    (mem / "MEMORY.md").write_text("".join(f"- entry number {i:03d}\n" for i in range(250)))
    assert run_wave("-p", "hi", cwd=project, server=model_server).returncode == 0
    block = dynamic_block(model_server)
    kept = [line for line in block.splitlines() if line.startswith("- entry number")]
    assert len(kept) == 200 and kept[-1] == "- entry number 199"
    warning = block.split("- entry number 199", 1)[1]
    assert "200-line limit" in warning and "50 entries" in warning  # the cap; how many left out
    assert '"- entry number 200"' in warning  # names the first entry left out
    assert "200 characters" in warning  # keep index lines short


@pytest.mark.req("A2")
def test_index_of_29000_characters_is_cut_back_to_a_newline(
    model_server: ModelServer, project: Path
) -> None:
    """A2: under 200 lines but over 25,000 characters: cut at a line boundary."""
    mem = memory_dir(project)
    mem.mkdir(parents=True)
    lines = [f"- item {i:03d} " + "x" * 270 + "\n" for i in range(100)]  # ~29,000 chars
    (mem / "MEMORY.md").write_text("".join(lines))
    assert run_wave("-p", "hi", cwd=project, server=model_server).returncode == 0
    block = dynamic_block(model_server)
    kept = [line for line in block.splitlines() if line.startswith("- item ")]
    assert all(line.endswith("x") for line in kept)  # no line cut in the middle
    assert sum(len(line) + 1 for line in kept) <= 25_000
    assert len(kept) < 100 and "characters" in block


@pytest.mark.req("A4")
def test_write_inside_the_memory_dir_needs_no_approval_in_default_mode(
    model_server: ModelServer, project: Path
) -> None:
    """A4: the memory dir is a safe zone; a look-alike sibling is not."""
    mem = memory_dir(project)
    model_server.enqueue(
        tool_call(
            "Write", {"file_path": str(mem / "build.md"), "content": "---\nname: b\n---\nx\n"}
        ),
        tool_call("Write", {"file_path": str(mem) + "-evil/x.md", "content": "no"}),
        tool_call("Write", {"file_path": str(mem / ".." / "escape.md"), "content": "no"}),
        text("saved"),
    )
    proc = run_wave("-p", "remember", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert (mem / "build.md").exists()
    assert not Path(str(mem) + "-evil").exists()
    assert not (mem.parent / "escape.md").exists()


@pytest.mark.req("A4")
def test_plan_mode_still_refuses_memory_writes(model_server: ModelServer, project: Path) -> None:
    """A4: no approval needed in any mode except plan."""
    mem = memory_dir(project)
    model_server.enqueue(
        tool_call("Write", {"file_path": str(mem / "a.md"), "content": "x"}), text("ok")
    )
    run_wave("-p", "x", "--permission-mode", "plan", cwd=project, server=model_server)
    assert not (mem / "a.md").exists()


@pytest.mark.req("S5", "S6")
def test_settings_file_off_beats_env_on(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """S6 + S5: autoMemoryEnabled false wins over WAVE_DISABLE_AUTO_MEMORY=0; no dir created."""
    write_user_settings(isolated_home, {"autoMemoryEnabled": False})
    proc = run_wave(
        "-p", "hi", cwd=project, server=model_server, env={"WAVE_DISABLE_AUTO_MEMORY": "0"}
    )
    assert proc.returncode == 0
    assert "# auto memory" not in dynamic_block(model_server)
    assert not memory_dir(project).exists()


@pytest.mark.req("S6")
def test_settings_file_on_beats_env_off(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """S6: autoMemoryEnabled true wins over WAVE_DISABLE_AUTO_MEMORY=1."""
    write_user_settings(isolated_home, {"autoMemoryEnabled": True})
    run_wave("-p", "hi", cwd=project, server=model_server, env={"WAVE_DISABLE_AUTO_MEMORY": "1"})
    assert "# auto memory" in dynamic_block(model_server)
    assert memory_dir(project).is_dir()


@pytest.mark.req("A4", "S5", "S6")
def test_env_disables_when_the_user_file_is_silent_and_memory_writes_then_need_approval(
    model_server: ModelServer, project: Path
) -> None:
    """S5, S6, A4: off ⇒ no dir, not a safe zone (a write there is refused in -p)."""
    target = memory_dir(project) / "x.md"
    model_server.enqueue(tool_call("Write", {"file_path": str(target), "content": "x"}), text("ok"))
    run_wave("-p", "hi", cwd=project, server=model_server, env={"WAVE_DISABLE_AUTO_MEMORY": "1"})
    assert "# auto memory" not in dynamic_block(model_server)
    assert not target.exists()
    assert "Permission denied" in model_server.requests[1].body["messages"][-1]["content"]


@pytest.mark.req("A3", "X3")
def test_work_trees_share_one_memory_dir(model_server: ModelServer, tmp_path: Path) -> None:
    """A3, X3: a memory written from a second work tree is in the first one's prompt."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", str(repo)], check=True)
    (repo / "README").write_text("x\n")
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "init"], check=True)
    other = tmp_path / "other-tree"
    subprocess.run([*git, "-C", str(repo), "worktree", "add", "-q", str(other)], check=True)
    assert WavePaths.for_workdir(other).project_id == WavePaths.for_workdir(repo).project_id
    mem = memory_dir(repo)
    model_server.enqueue(
        tool_call("Write", {"file_path": str(mem / "MEMORY.md"), "content": "- SHARED-FACT\n"}),
        text("saved"),
    )
    # MEMORY.md was loaded at session start, so it counts as read and may be replaced.
    assert run_wave("-p", "save", cwd=other, server=model_server).returncode == 0
    assert run_wave("-p", "hi", cwd=repo, server=model_server).returncode == 0
    assert "SHARED-FACT" in dynamic_block(model_server, -1)


def _append_many(index_path: str, worker: int, count: int) -> None:
    from wave_tui.config.paths import WavePaths as _Paths

    mem = AutoMemoryDir(_Paths.for_workdir(Path(index_path).parent))
    mem.path = Path(index_path).parent  # the dir itself, whatever project it is keyed by
    for i in range(count):
        mem.locked_update(Path(index_path), lambda cur, i=i: (cur or "") + f"- w{worker} e{i}\n")


@pytest.mark.req("X2")
def test_four_processes_appending_fifty_entries_each_lose_nothing(project: Path) -> None:
    """X2: lock + atomic replace around every write: 4 × 50 appends ⇒ 200 lines."""
    mem = AutoMemoryDir(WavePaths.for_workdir(project))
    mem.ensure()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(str(mem.index_path), w, 50)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    lines = mem.index_path.read_text().splitlines()
    assert len(lines) == 200 and len(set(lines)) == 200


# -- T1–T5: the staleness reminder on Read of a memory file --------------------------------------


def _read_memory_file(
    server: ModelServer, project: Path, age_days: float, *, inside: bool = True, env=None
) -> str:
    folder = memory_dir(project) if inside else project / "notes"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "debugging.md"
    target.write_text("---\nname: d\ntype: project\n---\nThe flaky test is test_io.\n")
    past = time.time() - age_days * DAY
    os.utime(target, (past, past))
    server.enqueue(tool_call("Read", {"file_path": str(target)}), text("ok"))
    proc = run_wave("-p", "check memory", cwd=project, server=server, env=env)
    assert proc.returncode == 0, proc.stderr
    return server.requests[1].body["messages"][-1]["content"]  # the main agent's 2nd request


@pytest.mark.req("T1")
def test_memory_ten_days_old_gets_the_exact_reminder(
    model_server: ModelServer, project: Path
) -> None:
    """T1: the tool result starts with the exact text, N = 10."""
    content = _read_memory_file(model_server, project, 10.2)
    expected = STALENESS_TEMPLATE.format(days=10) if "{days}" in STALENESS_TEMPLATE else None
    exact = (
        "<system-reminder>This memory is 10 days old. Memories are point-in-time observations, "
        "not live state — claims about code behavior or file:line citations may be outdated. "
        "Verify against current code before asserting as fact.</system-reminder>"
    )
    assert content.startswith(exact)
    if expected is not None:
        assert expected == exact


@pytest.mark.req("T2")
@pytest.mark.parametrize("age", [0.0, 1.5])
def test_today_or_yesterday_gets_no_reminder(
    model_server: ModelServer, project: Path, age: float
) -> None:
    """T2: N ≤ 1 ⇒ nothing."""
    assert "<system-reminder>" not in _read_memory_file(model_server, project, age)


@pytest.mark.req("T3")
def test_files_outside_the_memory_dir_get_no_reminder(
    model_server: ModelServer, project: Path
) -> None:
    """T3."""
    assert "<system-reminder>" not in _read_memory_file(model_server, project, 30, inside=False)


@pytest.mark.req("T5")
def test_auto_memory_off_means_no_reminder(model_server: ModelServer, project: Path) -> None:
    """T5."""
    content = _read_memory_file(model_server, project, 30, env={"WAVE_DISABLE_AUTO_MEMORY": "1"})
    assert "<system-reminder>" not in content


def test_a_secret_is_never_written_to_memory_by_the_main_agent(
    model_server: ModelServer, project: Path
) -> None:
    """Standards: no secrets in memory. The write is refused and the model told why."""
    target = memory_dir(project) / "deploy.md"
    model_server.enqueue(
        tool_call(
            "Write",
            {"file_path": str(target), "content": "---\nname: d\n---\nkey AKIAIOSFODNN7EXAMPLE\n"},
        ),
        text("ok"),
    )
    proc = run_wave(
        "-p",
        "remember the deploy key",
        cwd=project,
        server=model_server,
        env={"WAVE_DISABLE_AUTO_MEMORY": "0"},
    )
    assert proc.returncode == 0, proc.stderr
    assert not target.exists()
    told = model_server.requests[1].body["messages"][-1]["content"]
    assert "secret" in told and "AKIAIOSFODNN7EXAMPLE" not in told
