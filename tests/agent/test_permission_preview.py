"""What the permission dialog shows before a call runs (UX18, CV10): the Edit tool's own result
as a diff, or the refusal the tool will answer with; a Bash command with its description and
background flag; every argument of any other tool (an MCP tool's above all)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from wave_tui.files.read_state import ReadState
from wave_tui.session.permission_preview import permission_preview
from wave_tui.tools.base import ToolContext
from wave_tui.tools.edit import EditTool


async def run_edit(project: Path, args: dict[str, object]) -> str:
    """The real Edit tool's answer, after the Read it requires."""
    state = ReadState()
    target = project / "app.py"
    state.record_text(target, target.read_text(), target.stat().st_mtime_ns)
    context = ToolContext(workdir=project, read_state=state, abort=asyncio.Event())
    result = await EditTool().run(dict(args), context)
    return result.content


@pytest.mark.req("UX18")
@pytest.mark.parametrize(
    ("old", "why"),
    [("return 3", "old_string was not found"), ("x = 1", "old_string occurs 2 times")],
)
async def test_ux18_an_edit_the_tool_refuses_previews_the_refusal_not_a_diff(
    project: Path, old: str, why: str
) -> None:
    (project / "app.py").write_text("x = 1\nx = 1\nreturn 1\n", encoding="utf-8")
    args = {"file_path": "app.py", "old_string": old, "new_string": "changed"}
    preview = permission_preview("Edit", args, project)
    assert preview.kind == "refusal" and why in preview.text
    assert preview.text in await run_edit(project, args)  # word for word the tool's answer
    assert (project / "app.py").read_text() == "x = 1\nx = 1\nreturn 1\n"


@pytest.mark.req("UX18")
async def test_ux18_an_edit_preview_is_the_tools_own_result(project: Path) -> None:
    (project / "app.py").write_text("a\r\nx = 1\r\nb\r\n", encoding="utf-8", newline="")
    args = {"file_path": "app.py", "old_string": "x = 1\nb", "new_string": "x = 2\nb"}
    preview = permission_preview("Edit", args, project)  # CRLF matched as the tool does
    assert preview.kind == "diff"
    assert "-x = 1" in preview.text and "+x = 2" in preview.text
    missing = permission_preview("Edit", {**args, "file_path": "nope.py"}, project)
    assert missing.kind == "refusal" and "File does not exist" in missing.text
    same = permission_preview("Edit", {**args, "new_string": args["old_string"]}, project)
    assert same.kind == "refusal" and "identical" in same.text


@pytest.mark.req("CV10")
def test_cv10_bash_preview_carries_description_and_background(project: Path) -> None:
    args = {
        "command": "npm run dev",
        "description": "Start the dev server",
        "run_in_background": True,
    }
    preview = permission_preview("Bash", args, project)
    assert (preview.kind, preview.text) == ("command", "npm run dev")
    assert preview.description == "Start the dev server" and preview.background
    assert not permission_preview("Bash", {"command": "ls"}, project).background


@pytest.mark.req("CV10")
def test_cv10_another_tools_preview_lists_every_argument(project: Path) -> None:
    args = {"table": "users", "where": {"id": 7}, "limit": 1}
    preview = permission_preview("mcp__db__delete_rows", args, project)
    assert preview.kind == "arguments"
    assert '"where": {\n    "id": 7\n  }' in preview.text and '"limit": 1' in preview.text
