"""A settings file that names an endpoint but does not parse: its error comes first, and no
local demo model stands in silently (UX6)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.wave_cli import run_wave


@pytest.mark.req("UX6")
def test_ux6_broken_settings_naming_an_endpoint_do_not_start_the_demo_model(
    project: Path, isolated_home: Path
) -> None:
    settings = isolated_home / ".wave" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{"model": "m", "env": {"WAVE_BASE_URL": "http://127.0.0.1:9/v1",}}', encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAVE_")}
    done = run_wave("-p", "hi", cwd=project, env=env, timeout=60)
    assert "settings.json: invalid JSON" in done.stderr
    assert "offline" not in done.stderr and "demo" not in done.stderr, done.stderr
    first = next(line for line in done.stderr.splitlines() if line.strip())
    assert "settings.json" in first, done.stderr
