"""Fixtures of the memory tests: the project's paths (a module may define its own)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths


@pytest.fixture
def paths(project: Path) -> WavePaths:
    return WavePaths.for_workdir(project)
