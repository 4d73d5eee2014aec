"""No secrets in memory: the detector and every path that writes memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.wave_cli import run_wave
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


# An assignment to a name that says what it holds is a secret wherever it stands in the line.
MID_LINE = [
    "prod DB_PASSWORD=Xk9mPq2Lw7Rt4Vz8",
    "for deploys use AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY today",
    "the bot (GITHUB_TOKEN: 'q8Zr2mXv7Lp4Tn9Wk3') posts",
    "stagingCredential=Rf7Kq2Zm9Wx4Lp8T",
]
NOT_SECRET_ASSIGNMENTS = [
    "sort_key=created_at_desc",
    "the TOKEN=${DEPLOY_TOKEN} in CI",
    "primary key: user_id_column",
    "token: see docs/auth.md for the v2 flows",
    "API_KEY=<your-key-here-please>",
]


@pytest.mark.parametrize("text", MID_LINE)
def test_a_named_high_entropy_assignment_is_found_mid_line(text: str) -> None:
    refusal = secret_refusal(text)
    assert refusal is not None and "secret" in refusal


@pytest.mark.parametrize("text", NOT_SECRET_ASSIGNMENTS)
def test_a_named_assignment_of_a_word_or_reference_passes(text: str) -> None:
    assert secret_refusal(text) is None


def test_wave_memory_add_refuses_a_password_after_other_words(project: Path) -> None:
    proc = run_wave(
        "memory", "add", "--scope", "project", "prod DB_PASSWORD=Xk9mPq2Lw7Rt4Vz8", cwd=project
    )
    assert proc.returncode == 1 and "secret" in proc.stderr, proc.stderr
    saved = [p for p in project.rglob("*.md") if "Xk9mPq2Lw7Rt4Vz8" in p.read_text()]
    assert saved == []


def test_the_fork_may_not_write_an_aws_secret_after_other_text(project: Path) -> None:
    memory = AutoMemoryDir(WavePaths.for_workdir(project))
    memory.ensure()
    gate = memory_fork_gate(memory)
    content = (
        "# Deploys\nThe CI role: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
    )
    args = {"file_path": str(memory.path / "deploys.md"), "content": content}
    refused = gate.check(AnalysedUse.of("Write", args, project))
    assert not refused.allowed and "secret" in refused.reason
