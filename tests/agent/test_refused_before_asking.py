"""A call the tool would refuse is answered before anyone is asked to approve it: the user never
sees a diff for an Edit that cannot happen."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentService


def _asked(service: AgentService) -> list[str]:
    asked: list[str] = []

    def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.PermissionRequested):
            asked.append(event.tool_name)
            event.future.set_result("allow_once")

    service.subscribe(on_event)
    return asked


@pytest.mark.req("UX18")
@pytest.mark.parametrize(
    ("call", "refusal"),
    [
        (
            {"file_path": "app.py", "old_string": "sum(items)", "new_string": "0"},
            "has not been read yet",
        ),
        (
            {"file_path": "missing.py", "old_string": "a", "new_string": "b"},
            "File does not exist",
        ),
        ({"file_path": "app.py", "old_string": "x", "new_string": "x"}, "identical"),
    ],
)
async def test_an_edit_the_tool_would_refuse_is_refused_without_asking(
    make_service, model_server: ModelServer, project: Path, call: dict[str, str], refusal: str
) -> None:
    (project / "app.py").write_text("def total(items):\n    return sum(items)\n")
    model_server.enqueue(tool_call("Edit", call), text("done"))
    service: AgentService = make_service()
    asked = _asked(service)
    summaries: list[str] = []
    service.subscribe(
        lambda e: summaries.append(e.summary) if isinstance(e, ev.ToolFinished) else None
    )
    await service.run_turn("edit it")
    await service.destroy()
    assert asked == []
    assert summaries and refusal in summaries[0]  # the chat's row says why, not just "error"
    result = model_server.requests[1].body["messages"][-1]
    assert result["role"] == "tool" and refusal in result["content"]
    assert (project / "app.py").read_text() == "def total(items):\n    return sum(items)\n"


@pytest.mark.req("UX18")
async def test_an_edit_of_a_file_read_first_is_asked_and_made(
    make_service, model_server: ModelServer, project: Path
) -> None:
    (project / "app.py").write_text("def total(items):\n    return sum(items)\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "app.py"}),
        tool_call("Edit", {"file_path": "app.py", "old_string": "sum(items)", "new_string": "0"}),
        text("done"),
    )
    service: AgentService = make_service()
    asked = _asked(service)
    await service.run_turn("edit it")
    await service.destroy()
    assert asked == ["Edit"]
    assert (project / "app.py").read_text() == "def total(items):\n    return 0\n"


@pytest.mark.req("UX18")
async def test_a_write_over_an_unread_file_is_refused_without_asking(
    make_service, model_server: ModelServer, project: Path
) -> None:
    (project / "notes.txt").write_text("keep me\n")
    model_server.enqueue(tool_call("Write", {"file_path": "notes.txt", "content": "x"}), text("ok"))
    service: AgentService = make_service()
    asked = _asked(service)
    await service.run_turn("overwrite")
    await service.destroy()
    assert asked == []
    assert "has not been read yet" in model_server.requests[1].body["messages"][-1]["content"]
    assert (project / "notes.txt").read_text() == "keep me\n"
