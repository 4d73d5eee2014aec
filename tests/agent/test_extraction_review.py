"""Extraction runs with diffs and revert (MX7), the review inbox (MX8) and duplicate notes in the
fork's tool results (MX9), through the service and the `wave memory` command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui.agent.service import AgentService
from wave_tui.features.memory import extraction as extraction_module
from wave_tui.features.memory.extraction import ExtractionHook

TOPIC = "---\nname: build\ndescription: how to build\ntype: project\n---\nBuild with make dist.\n"


def extraction(service: AgentService) -> ExtractionHook:
    return service.extensions.of_type(ExtractionHook)


def script_fork_writes(model_server: ModelServer, mem: Path) -> None:
    model_server.enqueue(text("ok"), when=is_main)
    model_server.enqueue(
        tool_call("Write", {"file_path": str(mem / "build.md"), "content": TOPIC}),
        tool_call(
            "Edit",
            {
                "file_path": str(mem / "MEMORY.md"),
                "old_string": "- [Old](old.md) — old\n",
                "new_string": "- [Old](old.md) — old\n- [Build](build.md) — how to build\n",
            },
        ),
        text("saved"),
        when=is_fork,
    )


def cli(project: Path, *args: str):
    proc = run_wave("memory", *args, cwd=project)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.req("MX7")
async def test_mx7_a_run_is_listed_with_its_diff_and_reverted_memory_md_included(
    service_for, model_server: ModelServer, project: Path
) -> None:
    service = service_for()
    mem = service.paths.memory_dir
    index_before = "- [Old](old.md) — old\n"
    (mem / "MEMORY.md").write_text(index_before)
    script_fork_writes(model_server, mem)
    await service.run_turn("we build with make dist")
    await extraction(service).wait()
    await service.destroy()
    assert (mem / "build.md").read_text() == TOPIC

    (run,) = json.loads(cli(project, "runs", "--json").stdout)
    assert run["turn"] == 1 and run["kind"] == "extraction"
    assert sorted(Path(f).name for f in run["files"]) == ["MEMORY.md", "build.md"]
    assert "+- [Build](build.md) — how to build" in run["diff"]
    assert "+Build with make dist." in run["diff"]
    listing = cli(project, "runs", "--diff").stdout
    assert run["id"] in listing and "turn 1" in listing and "+Build with make dist." in listing

    reverted = cli(project, "revert", run["id"]).stdout
    assert "restored" in reverted and "recorded as" in reverted
    assert not (mem / "build.md").exists()
    assert (mem / "MEMORY.md").read_text() == index_before  # pointer gone with the file
    runs = json.loads(cli(project, "runs", "--json").stdout)
    assert [r["kind"] for r in runs] == ["revert", "extraction"]
    assert runs[0]["reverts"] == run["id"] and runs[1]["reverted_by"] == runs[0]["id"]
    again = run_wave("memory", "revert", run["id"], cwd=project)
    assert again.returncode == 1 and "already reverted" in again.stderr
    # The revert is itself a run: reverting it brings the memory back.
    cli(project, "revert", runs[0]["id"])
    assert (mem / "build.md").read_text() == TOPIC


@pytest.mark.req("MX7")
async def test_mx7_revert_leaves_a_file_edited_since_alone(
    service_for, model_server: ModelServer, project: Path
) -> None:
    service = service_for()
    mem = service.paths.memory_dir
    (mem / "MEMORY.md").write_text("- [Old](old.md) — old\n")
    script_fork_writes(model_server, mem)
    await service.run_turn("we build with make dist")
    await extraction(service).wait()
    await service.destroy()
    (mem / "build.md").write_text("edited by the user\n")
    (run,) = json.loads(cli(project, "runs", "--json").stdout)
    out = cli(project, "revert", run["id"]).stdout
    assert "left alone:" in out and "build.md (changed since the run)" in out
    assert (mem / "build.md").read_text() == "edited by the user\n"
    assert "build.md" not in (mem / "MEMORY.md").read_text()


@pytest.mark.req("MX7")
@pytest.mark.req("FH10")
async def test_a_revert_that_puts_nothing_back_is_not_recorded(
    service_for, model_server: ModelServer, project: Path
) -> None:
    service = service_for()
    mem = service.paths.memory_dir
    script_fork_writes(model_server, mem)
    await service.run_turn("we build with make dist")
    await extraction(service).wait()
    await service.destroy()
    for written in mem.glob("*.md"):  # the user changed every file the run wrote
        written.write_text(f"edited by the user: {written.name}\n")
    (run,) = json.loads(cli(project, "runs", "--json").stdout)
    proc = run_wave("memory", "revert", run["id"], cwd=project)
    assert proc.returncode == 1
    assert "nothing to put back" in proc.stderr and "changed since the run" in proc.stderr
    runs = json.loads(cli(project, "runs", "--json").stdout)
    assert [r["kind"] for r in runs] == ["extraction"] and runs[0]["reverted_by"] is None


@pytest.mark.req("MX8")
async def test_mx8_review_mode_writes_wait_in_the_inbox_until_accepted(
    service_for, model_server: ModelServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `autoMemoryReview` arrives with the settings work; until then the switch is patched here.
    monkeypatch.setattr(extraction_module, "review_enabled", lambda _settings: True)
    service = service_for()
    mem = service.paths.memory_dir
    (mem / "MEMORY.md").write_text("- [Old](old.md) — old\n")
    script_fork_writes(model_server, mem)
    await service.run_turn("we build with make dist")
    await extraction(service).wait()
    await service.destroy()
    assert not (mem / "build.md").exists()  # nothing reaches the memory folder before accept
    assert (mem / "MEMORY.md").read_text() == "- [Old](old.md) — old\n"
    fork_tool_results = [
        m["content"]
        for r in model_server.requests
        if is_fork(r.body)
        for m in r.body["messages"]
        if m.get("role") == "tool"
    ]
    assert any("for review (pending item" in c for c in fork_tool_results)

    items = json.loads(cli(project, "inbox", "--json").stdout)
    assert [i["relative"] for i in items] == ["build.md", "MEMORY.md"]
    assert items[0]["before"] is None and "+Build with make dist." in items[0]["diff"]
    assert "+- [Build](build.md) — how to build" in items[1]["diff"]
    assert "build.md (new file)" in cli(project, "inbox").stdout

    cli(project, "accept", items[0]["id"])
    assert (mem / "build.md").read_text() == TOPIC
    cli(project, "reject", items[1]["id"])
    assert "build.md" not in (mem / "MEMORY.md").read_text()
    assert json.loads(cli(project, "inbox", "--json").stdout) == []
    missing = run_wave("memory", "accept", items[1]["id"], cwd=project)
    assert missing.returncode == 1 and "no pending memory write" in missing.stderr


@pytest.mark.req("MX9")
async def test_mx9_fork_write_repeating_an_agents_md_item_is_told_which(
    service_for, model_server: ModelServer, project: Path
) -> None:
    (project / "AGENTS.md").write_text("- Build the release with make dist.\n")
    service = service_for()
    mem = service.paths.memory_dir
    model_server.enqueue(text("ok"), when=is_main)
    topic = "---\nname: build\ntype: project\n---\n# Build\nBuild the release with make dist\n"
    model_server.enqueue(
        tool_call("Write", {"file_path": str(mem / "build.md"), "content": topic}),
        text("saved"),
        when=is_fork,
    )
    await service.run_turn("how do we build?")
    await extraction(service).wait()
    await service.destroy()
    fork = [r for r in model_server.requests if is_fork(r.body)][-1]
    result = next(m["content"] for m in fork.body["messages"] if m.get("role") == "tool")
    assert "Note: this memory repeats project:AGENTS.md#1" in result
    assert str(project / "AGENTS.md") in result


@pytest.mark.req("MX9")
async def test_mx9_main_agent_memory_write_repeating_another_memory_is_told(
    service_for, model_server: ModelServer, project: Path
) -> None:
    service = service_for()
    mem = service.paths.memory_dir
    (mem / "style.md").write_text(
        "---\nname: style\ntype: feedback\n---\nPrefer tabs over spaces.\n"
    )
    model_server.enqueue(
        tool_call(
            "Write",
            {
                "file_path": str(mem / "tabs.md"),
                "content": "---\nname: tabs\ntype: feedback\n---\nprefer tabs over spaces\n",
            },
        ),
        text("noted"),
        when=is_main,
    )
    await service.run_turn("remember: tabs over spaces")
    await service.destroy()
    main = [r for r in model_server.requests if is_main(r.body)][-1]
    (result,) = [m["content"] for m in main.body["messages"] if m.get("role") == "tool"]
    assert result.count("Note: this memory repeats auto:style.md") == 1
