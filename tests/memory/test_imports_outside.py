"""Memory imports from outside the project (FH10): asked about once per project, with the trust
prompt; secret-looking files never load, approved or not."""

from __future__ import annotations

import pytest

from tests.memory.test_imports import reminder, write
from wave_tui.config.paths import WavePaths
from wave_tui.config.trust import TrustStore
from wave_tui.memory.agents_md import project_memory_files
from wave_tui.memory.imports import outside_imports_request


def approve(paths: WavePaths) -> None:
    request = outside_imports_request(project_memory_files(paths), paths)
    assert request is not None
    TrustStore(paths.trust_file).record(request)


@pytest.mark.req("FH10")
def test_a_home_import_waits_for_the_projects_approval_then_loads(paths: WavePaths) -> None:
    shared = write(paths.home / "team" / "shared.md", "Team rule: squash merges.\n")
    write(paths.project_root / "AGENTS.md", "Project notes.\n@~/team/shared.md\n")
    warnings: list[str] = []
    assert "squash" not in reminder(paths, warnings)
    assert warnings == [
        "AGENTS.md: imports not loaded: ~/team/shared.md (outside the project: not trusted yet)"
    ]
    request = outside_imports_request(project_memory_files(paths), paths)
    assert request is not None
    assert (request.kind, request.items) == ("imports", (str(shared.resolve()),))
    approve(paths)
    warnings.clear()
    assert "Project notes.\nTeam rule: squash merges." in reminder(paths, warnings)
    assert warnings == []
    assert outside_imports_request(project_memory_files(paths), paths) is None  # asked once
    write(paths.home / "team" / "more.md", "More.\n")  # another file: the same approval
    write(paths.project_root / "AGENTS.md", "@~/team/shared.md\n@~/team/more.md\n")
    assert "More." in reminder(paths, [])


@pytest.mark.req("FH10")
@pytest.mark.parametrize(
    "name", [".ssh/config.md", "keys/server.pem", "app/.env.local", "keys/deploy.key", "id_ed25519"]
)
def test_a_secret_looking_file_never_loads_even_approved(paths: WavePaths, name: str) -> None:
    write(paths.home / "team" / "shared.md", "Shared.\n")
    write(paths.home / name, "SECRET-VALUE\n")
    write(paths.project_root / "AGENTS.md", f"@~/team/shared.md\n@~/{name}\n")
    approve(paths)
    warnings: list[str] = []
    text = reminder(paths, warnings)
    assert "Shared." in text and "SECRET-VALUE" not in text
    assert warnings == [
        f"AGENTS.md: imports not loaded: ~/{name} (outside the project: a secret-looking file, "
        "never imported)"
    ]


@pytest.mark.req("FH10")
def test_the_users_own_memory_imports_from_home_without_asking(paths: WavePaths) -> None:
    write(paths.home / "notes" / "mine.md", "My habits.\n")
    write(paths.user_agents_md, "@~/notes/mine.md\n")
    warnings: list[str] = []
    assert "My habits." in reminder(paths, warnings) and warnings == []
    assert outside_imports_request(project_memory_files(paths), paths) is None
