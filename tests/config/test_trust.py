"""The trust store for project-provided code (HK10, MC8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wave_tui.config.trust import TrustStore, fingerprint

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("MC8")


@pytest.mark.req("HK10")
def test_hk10_fingerprint_ignores_order_and_duplicates() -> None:
    assert fingerprint(["a", "b", "a"]) == fingerprint(["b", "a"])
    assert fingerprint(["a"]) != fingerprint(["a", "b"])


@pytest.mark.req("HK10")
def test_hk10_record_then_trusted_per_project_and_kind(tmp_path: Path) -> None:
    store = TrustStore(tmp_path / ".wave" / "trust.json")
    project = tmp_path / "p"
    project.mkdir()
    request = store.request(project, "hooks", ["Stop *: make test"])
    assert request is not None and not store.is_trusted(project, "hooks", request.items)
    store.record(request)
    assert store.request(project, "hooks", ["Stop *: make test"]) is None
    assert store.request(project, "mcp", ["server x"]) is not None  # another kind
    assert store.request(project, "hooks", ["Stop *: rm -rf /"]) is not None  # changed set
    data = json.loads((tmp_path / ".wave" / "trust.json").read_text())
    assert list(data) == [f"{project.resolve()}::hooks"]
    store.revoke(project, "hooks")
    assert store.request(project, "hooks", ["Stop *: make test"]) is not None


@pytest.mark.req("HK10")
def test_hk10_nothing_to_trust_and_invoker_mode_never_ask(tmp_path: Path) -> None:
    assert TrustStore(tmp_path / "t.json").request(tmp_path, "hooks", []) is None
    assert TrustStore(tmp_path / "t.json", "invoker").request(tmp_path, "hooks", ["x"]) is None
    assert not (tmp_path / "t.json").exists()
