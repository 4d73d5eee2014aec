"""Every test under tests/bench is a benchmark: deselected by default (`-m "not bench"` in the
pytest options), run once in CI's own step (`-m bench --benchmark-disable`)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.resolve().parents:
            item.add_marker(pytest.mark.bench)
