"""X11: every memory source treats undecodable bytes the same way — warned; binary not loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave


def _rules(project: Path) -> Path:
    folder = project / ".wave" / "rules"
    folder.mkdir(parents=True)
    return folder


@pytest.mark.req("X11")
def test_x11_binary_rule_is_not_loaded_and_latin1_rule_is_warned(
    model_server: ModelServer, project: Path
) -> None:
    rules = _rules(project)
    (rules / "blob.md").write_bytes(b"BINARY-RULE\x00\x01\x02 marker\n")
    (rules / "latin.md").write_bytes("LATIN-RULE caf\xe9 au lait\n".encode("latin-1"))
    (project / "AGENTS.md").write_bytes(b"AGENTS-BINARY\x00\n")
    model_server.enqueue(text("ok"))

    proc = run_wave("-p", "hi", cwd=project, server=model_server)

    assert proc.returncode == 0, proc.stderr
    body = json.dumps(model_server.requests[0].body)
    assert "BINARY-RULE" not in body and "\\u0000" not in body
    assert "AGENTS-BINARY" not in body
    assert "LATIN-RULE" in body  # text that is not UTF-8 still loads, reported
    stderr = proc.stderr
    assert "blob.md" in stderr and "binary" in stderr
    assert "latin.md" in stderr and "not valid UTF-8" in stderr
    assert "AGENTS.md" in stderr and "binary" in stderr


@pytest.mark.req("X11")
def test_x11_binary_rule_is_listed_inactive_with_the_reason(project: Path) -> None:
    (_rules(project) / "blob.md").write_bytes(b"\x00\x00\x00")
    proc = run_wave("memory", "list", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    rule = next(e for e in json.loads(proc.stdout) if e["id"].endswith("blob.md"))
    assert rule["status"] == "inactive" and "binary" in rule["reason"]
