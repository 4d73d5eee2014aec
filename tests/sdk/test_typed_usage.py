"""The SDK is typed and documented: a program using every public name passes `mypy --strict`,
the same program with a wrong call does not, and docs/sdk.md names every public name."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import wave_tui
from tests.sdk.programs import ROOT
from wave_tui import Agent

PROGRAM = Path(__file__).with_name("typed_usage.py")
DOC = ROOT / "docs" / "sdk.md"


def _public_members() -> set[str]:
    return {name for name in dir(Agent) if not name.startswith("_")}


@pytest.mark.req("SX11")
def test_the_program_uses_every_public_name() -> None:
    tree = ast.parse(PROGRAM.read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "wave_tui"
        for alias in node.names
    }
    assert imported == set(wave_tui.__all__)
    used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert _public_members() - used == set()


@pytest.mark.req("SX11")
def test_mypy_strict_accepts_the_program_and_refuses_a_wrong_call(tmp_path: Path) -> None:
    source = PROGRAM.read_text(encoding="utf-8")
    wrong = tmp_path / "wrong_usage.py"
    wrong.write_text(
        source.replace('await agent.send_message("hi", images=', "await agent.send_message(3, x=")
        .replace('agent.set_model("other")', "agent.set_model(None)")
        .replace('agent.set_permission_mode("acceptEdits")', 'agent.set_permission_mode("yolo")'),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / "cache"), str(PROGRAM), str(wrong)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert errors, done.stdout + done.stderr
    assert all(line.startswith(str(wrong)) for line in errors), errors
    text = "\n".join(errors)
    for problem in ('"send_message"', '"set_model"', '"set_permission_mode"'):
        assert problem in text, text


@pytest.mark.req("SX11")
def test_the_docs_name_every_public_name_and_have_the_004_audit() -> None:
    doc = DOC.read_text(encoding="utf-8")
    prose = re.sub(r"```.*?```", "", doc, flags=re.S)
    spans = re.findall(r"`([^`]+)`", prose)
    named = {word for span in spans for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span)}
    missing = (set(wave_tui.__all__) | _public_members()) - named - {"__version__"}
    assert missing == set()
    audit = doc[doc.index("## 004 audit") :]
    rows = re.findall(r"^\| (.+?) \| (done|partial|absent|—) \|", audit, re.M)
    assert len(rows) > 100
    for js_only in ("`server_url`", "`fetch`", "`fetch_options`"):
        assert any(item.startswith(js_only) and status == "—" for item, status in rows), js_only


@pytest.mark.req("SX11")
def test_the_package_says_it_is_typed() -> None:
    # Without the PEP 561 marker an installed wave_tui is "missing library stubs" to mypy.
    assert (ROOT / "wave_tui" / "py.typed").is_file()
    assert '"py.typed"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
