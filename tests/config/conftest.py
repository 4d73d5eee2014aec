"""Fixtures for the settings tests: a WavePaths under the isolated HOME and a file writer."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wave_tui.config.paths import WavePaths

WriteSettings = Callable[[Path, Any], Path]


@pytest.fixture
def paths(isolated_home: Path, project: Path) -> WavePaths:
    return WavePaths(project_root=project.resolve(), home=isolated_home.resolve())


def bump_mtime(path: Path) -> None:
    """Move mtime clearly forward, so a rewrite within one clock tick is still seen as a change."""
    st = path.stat()
    later = st.st_mtime_ns + 2_000_000_000
    os.utime(path, ns=(later, later))


@pytest.fixture
def write_settings() -> WriteSettings:
    """Write JSON (or raw text when given a str) to a settings file, making its change visible."""

    def write(path: Path, content: Any) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content, indent=2)
        existed = path.exists()
        path.write_text(text, encoding="utf-8")
        if existed:
            bump_mtime(path)
        return path

    return write
