"""Instruction files as Claude Code reads them (MR6): HTML comments outside code fences never
reach the model; citations in AGENTS.md items and rules are verified like topic files; the
extraction fork's listing marks `citation changed`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave
from wave_tui.agent import events as ev
from wave_tui.config.paths import WavePaths
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.memory.html_comments import strip_html_comments

pytestmark = pytest.mark.req("MR6")

AGENTS = """# Project

<!-- maintainers: keep this list short -->
Use tabs in Makefiles. <!-- inline note --> Always.

```html
<!-- this comment is code and stays -->
```

<!--
a block comment
over lines
-->
Run make test before a commit.
"""
RULE = "---\n---\n<!-- why: the 2024 outage -->\nNever force-push main.\n"


def sent_text(model_server: ModelServer) -> str:
    return json.dumps(model_server.requests[0].body["messages"], ensure_ascii=False)


async def test_html_comments_are_not_sent_but_fenced_ones_are(
    service_for, model_server: ModelServer, project: Path
) -> None:
    (project / "AGENTS.md").write_text(AGENTS)
    rules = project / ".wave" / "rules"
    rules.mkdir(parents=True)
    (rules / "git.md").write_text(RULE)
    model_server.enqueue(text("ok"), when=is_main)
    service = service_for()
    await service.run_turn("hello")
    await service.extensions.of_type(ExtractionHook).wait()
    sent = sent_text(model_server)
    assert "Use tabs in Makefiles.  Always." in sent
    assert "Run make test before a commit." in sent and "Never force-push main." in sent
    assert "<!-- this comment is code and stays -->" in sent
    for hidden in ("maintainers", "inline note", "a block comment", "2024 outage"):
        assert hidden not in sent


def test_comment_stripping_keeps_text_and_an_unclosed_comment() -> None:
    assert strip_html_comments("a\n<!-- x -->\nb\n") == "a\nb\n"
    assert strip_html_comments("a <!-- x --> b <!-- y --> c\n") == "a  b  c\n"
    assert strip_html_comments("a\n<!-- never closed\nb\n") == "a\n<!-- never closed\nb\n"
    fenced = "~~~\n<!-- kept -->\n~~~\n<!-- gone -->\nz\n"
    assert strip_html_comments(fenced) == "~~~\n<!-- kept -->\n~~~\nz\n"


def test_an_agents_md_item_and_a_rule_show_citation_changed(project: Path) -> None:
    src = project / "src"
    src.mkdir()
    (src / "app.py").write_text("PORT = 8080\n")
    added = run_wave(
        "memory", "add", "--scope", "project", "The port is set at src/app.py:1", cwd=project
    )
    assert added.returncode == 0, added.stderr
    rules = project / ".wave" / "rules"
    rules.mkdir(parents=True)
    (rules / "port.md").write_text("Keep the port of src/app.py:1 in the docs.\n")
    first = run_wave("memory", "list", "--json", cwd=project)  # pins the rule as it reads now
    assert first.returncode == 0, first.stderr
    (src / "app.py").write_text("PORT = 9090\n")  # the cited line changes after both were saved

    listed = json.loads(run_wave("memory", "list", "--json", cwd=project).stdout)
    marked = {e["scope"]: e["changed_refs"] for e in listed if e["changed_refs"]}
    assert set(marked) == {"project", "rule"}
    (change,) = marked["project"]
    assert change == {"ref": "src/app.py:1", "old": "PORT = 8080", "new": "PORT = 9090"}


async def test_the_fork_listing_marks_citation_changed(
    service_for, model_server: ModelServer, project: Path
) -> None:
    src = project / "src"
    src.mkdir()
    (src / "app.py").write_text("PORT = 8080\n")
    memory = WavePaths.for_workdir(project).memory_dir
    memory.mkdir(parents=True)
    (memory / "port.md").write_text(
        "---\nname: port\ndescription: the dev port\ntype: project\n---\nSee src/app.py:1\n"
    )
    assert run_wave("memory", "list", "--json", cwd=project).returncode == 0  # pinned
    (src / "app.py").write_text("PORT = 9090\n")
    model_server.enqueue(text("ok"), when=is_main)
    model_server.enqueue(text("nothing to save"), when=is_fork)
    service = service_for()
    await service.run_turn("what is the port?")
    await service.extensions.of_type(ExtractionHook).wait()
    fork = next(r for r in model_server.requests if is_fork(r.body))
    listing = fork.body["messages"][-1]["content"]
    assert "port.md" in listing and "[citation changed: `src/app.py:1`" in listing


async def test_an_oversize_agents_md_is_warned_once_with_its_name_and_size(
    service_for, model_server: ModelServer, project: Path
) -> None:
    (project / "AGENTS.md").write_text("Keep the build green.\n" * 2_000)  # 44,000 characters
    notices: list[str] = []
    model_server.enqueue(text("one"), text("two"), when=is_main)
    service = service_for()
    service.subscribe(lambda e: notices.append(e.text) if isinstance(e, ev.Notice) else None)
    await service.run_turn("first")
    await service.run_turn("second")
    warned = [n for n in notices if "AGENTS.md is 44,000 characters" in n]
    assert len(warned) == 1 and "loads with every request" in warned[0]
    shown = run_wave("context", cwd=project)
    assert shown.returncode == 0, shown.stderr
    assert "warning: AGENTS.md is 44,000 characters" in shown.stdout


def test_a_small_window_makes_a_smaller_file_oversize(project: Path) -> None:
    (project / "AGENTS.md").write_text("Keep the build green.\n" * 100)  # 2,200 characters
    env = {"WAVE_MAX_INPUT_TOKENS": "4000"}  # 550 tokens are 14% of it
    shown = run_wave("context", "--json", cwd=project, env=env)
    assert shown.returncode == 0, shown.stderr
    assert "AGENTS.md is 2,200 characters (~550 tokens, 14% of the window)" in shown.stderr
    quiet = run_wave("context", "--json", cwd=project)
    assert "AGENTS.md is" not in quiet.stderr


def test_auto_memory_directory_moves_the_folder_from_user_settings_only(
    project: Path, tmp_path: Path
) -> None:
    custom = tmp_path / "my-memory"
    custom.mkdir()
    (custom / "port.md").write_text(
        "---\nname: port\ndescription: the dev port\ntype: project\n---\nPort 8080.\n"
    )
    (project / ".wave").mkdir()
    (project / ".wave" / "settings.json").write_text(
        json.dumps({"autoMemoryDirectory": str(tmp_path / "project-picked")})
    )
    assert WavePaths.for_workdir(project).memory_dir.name == "memory"  # a project cannot move it
    home_settings = Path.home() / ".wave" / "settings.json"
    home_settings.parent.mkdir(parents=True, exist_ok=True)
    home_settings.write_text(json.dumps({"autoMemoryDirectory": str(custom)}))
    assert WavePaths.for_workdir(project).memory_dir == custom
    entries = json.loads(run_wave("memory", "list", "--json", cwd=project).stdout)
    assert [e["path"] for e in entries if e["scope"] == "auto"] == [str(custom / "port.md")]
