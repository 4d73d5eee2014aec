"""No secrets in memory: the detector and every path that writes memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.memory.auto_memory import AutoMemoryDir
from wave_tui.memory.entries import EntryError, add_entry
from wave_tui.memory.fork_gate import memory_fork_gate
from wave_tui.memory.secrets import find_secrets, secret_refusal
from wave_tui.permissions.call_facts import AnalysedUse

SECRETS = [
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_" + "a1B2" * 9,
    "sk-proj-" + "x9Y8" * 8,
    "xoxb-123456789012-abcdefghijkl",
    "AIza" + "A1b2C3d4E5" * 3 + "f6G7h",
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    "password = hunter2hunter2x9",
    "API_KEY: 'a8f3k29dk3jf93kd'",
]
HARMLESS = [
    "The deploy token lives in the DEPLOY_TOKEN env var.",
    "Run `make test` before pushing; password reset flow is in auth/reset.py",
    "sk-learn is the sklearn package",
    "Use the secret-manager CLI: `secrets get prod/db`",
]


@pytest.mark.parametrize("secret", SECRETS)
def test_credentials_are_found(secret: str) -> None:
    findings = find_secrets(f"note: {secret} end")
    assert findings and secret not in str(findings)  # the preview never repeats the secret


@pytest.mark.parametrize("text", HARMLESS)
def test_ordinary_memories_pass(text: str) -> None:
    assert secret_refusal(text) is None


def test_wave_memory_add_refuses_a_secret(project: Path) -> None:
    target = project / "AGENTS.md"
    with pytest.raises(EntryError, match="secret"):
        add_entry(target, "the prod key is AKIAIOSFODNN7EXAMPLE")
    assert not target.exists()


def test_the_fork_may_not_write_a_secret_into_memory(project: Path) -> None:
    memory = AutoMemoryDir(WavePaths.for_workdir(project))
    memory.ensure()
    gate = memory_fork_gate(memory)
    target = str(memory.path / "creds.md")
    refused = gate.check(
        AnalysedUse.of(
            "Write", {"file_path": target, "content": "key: AKIAIOSFODNN7EXAMPLE"}, project
        )
    )
    assert not refused.allowed and "secret" in refused.reason
    edit = {"file_path": target, "old_string": "x", "new_string": "ghp_" + "a1B2" * 9}
    assert not gate.check(AnalysedUse.of("Edit", edit, project)).allowed
    assert gate.check(
        AnalysedUse.of("Write", {"file_path": target, "content": "clean"}, project)
    ).allowed
