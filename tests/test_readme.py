"""The README's set-up keeps its promise to a newcomer: exactly two commands (install and run,
install and test), the test one parallel, and the same test selection as `.ci/run`."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setup_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.S)]


def test_the_readme_gives_two_set_up_commands_and_the_test_one_is_parallel() -> None:
    run, test = _setup_commands()[:2]  # (the section goes on with examples of use)
    assert run.startswith("python3 -m venv .venv") and run.endswith(".venv/bin/wave")
    assert test.startswith("python3 -m venv .venv") and "'.[test,local]'" in test
    parallel, serial = re.findall(r"-m pytest ([^&]*)", test)
    assert "-n auto" in parallel and "-m 'not bench and not serial'" in parallel
    assert serial.strip() == "-m serial"


def test_ci_runs_the_readme_selection() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test,local]'" in ci
    assert 'pytest_step -n 2 -m "not bench and not serial"' in ci
    assert "pytest_step -m serial" in ci
