"""Permission decisions: order, rules on real paths, safe zones, modes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wave_tui.permissions.policy import PermissionPolicy, SafeZones


@pytest.fixture
def policy(project: Path) -> PermissionPolicy:
    return PermissionPolicy(
        project, allow=["Write(src/*)", "Bash(npm *)"], deny=["Read(secret.txt)", "Bash(rm *)"]
    )


@pytest.mark.req("PM2")
def test_rules_match_the_real_path_not_the_raw_argument(
    policy: PermissionPolicy, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PM2: `..` cannot walk a Write(src/*) allowance out of the project; `./x` cannot dodge a deny."""
    monkeypatch.chdir(tmp_path)  # the process cwd differs from the work dir (wave --workdir)
    (project / "src").mkdir()
    assert policy.decide("Write", {"file_path": "src/a.py"}).behavior == "allow"
    escape = policy.decide("Write", {"file_path": "src/../../../root/.bashrc"})
    assert escape.behavior == "ask"
    for spelled in ("secret.txt", "./secret.txt", "src/../secret.txt", str(project / "secret.txt")):
        assert policy.decide("Read", {"file_path": spelled}).behavior == "deny", spelled


def test_a_symlink_inside_the_project_pointing_out_is_judged_by_its_target(
    policy: PermissionPolicy, project: Path, tmp_path: Path
) -> None:
    (project / "src").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, project / "src" / "link")
    assert policy.decide("Write", {"file_path": "src/link/x"}).behavior == "ask"


@pytest.mark.req("PM1")
def test_decision_order(policy: PermissionPolicy, project: Path) -> None:
    """PM1: decision order."""
    assert policy.decide("Bash", {"command": "rm -rf x"}).behavior == "deny"  # deny first
    assert policy.decide("Bash", {"command": "git status"}).behavior == "allow"  # read-only
    assert policy.decide("Bash", {"command": "npm test"}).behavior == "allow"  # allow rule
    assert policy.decide("Bash", {"command": "make"}).behavior == "ask"
    policy.mode = "plan"
    assert policy.decide("Bash", {"command": "npm test"}).behavior == "deny"
    policy.mode = "bypassPermissions"
    assert policy.decide("Bash", {"command": "make"}).behavior == "allow"
    policy.mode = "acceptEdits"
    assert policy.decide("Write", {"file_path": "notes.md"}).behavior == "allow"
    assert policy.decide("Write", {"file_path": "/etc/x"}).behavior == "ask"


@pytest.mark.req("PM5")
def test_safe_zone_add_and_remove_are_idempotent(project: Path, tmp_path: Path) -> None:
    """PM5: safe zone add and remove are idempotent."""
    zones = SafeZones()
    zone = tmp_path / "memory"
    zone.mkdir()
    policy = PermissionPolicy(project, safe_zones=zones)
    zones.add(zone)
    zones.add(zone)
    assert len(list(zones)) == 1
    assert policy.decide("Write", {"file_path": str(zone / "a.md")}).behavior == "allow"
    assert policy.decide("Write", {"file_path": str(zone) + "-evil/a.md"}).behavior == "ask"
    zones.remove(zone)
    zones.remove(zone)
    assert list(zones) == []
    assert policy.decide("Write", {"file_path": str(zone / "a.md")}).behavior == "ask"
