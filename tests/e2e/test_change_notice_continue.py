"""A change notice is sent once, also across `--continue` (UX10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave


@pytest.mark.req("UX10")
def test_ux10_a_change_notice_is_not_repeated_after_continue(
    model_server: ModelServer, project: Path
) -> None:
    notes = project / "notes.txt"
    notes.write_text("one\ntwo\n", encoding="utf-8")
    model_server.enqueue(tool_call("Read", {"file_path": str(notes)}), text("read it"))
    first = run_wave("-p", "read notes.txt", cwd=project, server=model_server)
    assert first.returncode == 0, first.stderr
    notes.write_text("one\ntwo\nthree\n", encoding="utf-8")
    model_server.enqueue(text("noted"))
    second = run_wave("-p", "anything new?", "--continue", cwd=project, server=model_server)
    assert second.returncode == 0, second.stderr
    last = json.dumps(model_server.last_request.body["messages"])
    assert "three" in last  # the notice of the outside edit reached the model
    model_server.enqueue(text("still fine"))
    third = run_wave("-p", "and now?", "--continue", cwd=project, server=model_server)
    assert third.returncode == 0, third.stderr
    messages = model_server.last_request.body["messages"]
    reminders = [
        m
        for m in messages
        if m["role"] == "user"
        and "notes.txt" in json.dumps(m["content"])
        and "system-reminder" in json.dumps(m["content"])
    ]
    assert len(reminders) == 1, json.dumps(reminders, indent=1)
