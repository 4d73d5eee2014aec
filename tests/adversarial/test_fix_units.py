"""In-process checks for the fixes the adversarial round led to (each first failed black-box in
its family: see test_bad_input.py items `infinity`, `binary-transcript`, `json-not-object`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.agent.transcript import Transcript
from wave_tui.config.sources import parse_settings_file


@pytest.mark.req("X9")
@pytest.mark.parametrize("constant", ["Infinity", "-Infinity", "NaN"])
def test_x9_non_json_constants_are_named_and_the_file_ignored(
    tmp_path: Path, constant: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(f'{{"firstByteTimeout": {constant}}}')
    values, problems = parse_settings_file(path, "~/.wave/settings.json", {"model": "kept"})
    assert values == {"model": "kept"}
    assert len(problems) == 1 and constant in problems[0] and "settings.json" in problems[0]


@pytest.mark.req("X9")
def test_x9_many_corrupt_transcript_lines_give_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"garbage\n" * 50 + b'{"role": "user", "content": "kept"}\n' + b"[1]\n")
    warnings: list[str] = []
    messages = Transcript(path).load(warnings.append)
    assert [m.content for m in messages] == ["kept"]
    assert len(warnings) == 1
    assert "51 corrupt lines" in warnings[0] and "line 1" in warnings[0]


@pytest.mark.req("X9")
def test_x9_one_corrupt_transcript_line_names_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role": "user", "content": "kept"}\nnot json\n')
    warnings: list[str] = []
    Transcript(path).load(warnings.append)
    assert len(warnings) == 1 and "corrupt line 2" in warnings[0]


@pytest.mark.req("X5")
def test_x5_main_agent_git_behind_an_empty_dotgit_runs_no_parent_driver(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Adversarial round: an empty `.git/` in the project made the guard vouch for it, while git
    skipped it and ran the parent repository's `diff.external` with no approval."""
    import os
    import subprocess

    from tests.adversarial.test_fork_escapes import _parent_repo_behind_empty_dotgit
    from tests.adversarial.world import make_world
    from wave_tui.permissions.policy import PermissionPolicy

    world = make_world(isolated_home, tmp_path)
    _parent_repo_behind_empty_dotgit(world)
    decision = PermissionPolicy(world.proj, "default").decide("Bash", {"command": "git diff"})
    if decision.behavior == "allow":
        env = {**os.environ, **decision.profile.env}
        subprocess.run(["git", "diff"], cwd=world.proj, env=env, capture_output=True, check=False)
    assert decision.behavior == "ask"
    assert not world.pwned.exists()


@pytest.mark.req("X5")
def test_x5_allow_rule_does_not_carry_git_into_a_hostile_repository(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Adversarial round: under `allow: Bash(echo *)`, `echo hi; git -C <memory>/r status` was
    allowed by the rule and ran unhardened: the memory repository's core.fsmonitor ran."""
    import os
    import subprocess

    from tests.adversarial.world import make_world
    from wave_tui.permissions.policy import PermissionPolicy

    world = make_world(isolated_home, tmp_path)
    command = f"echo hi; git -C {world.mem}/r status"
    policy = PermissionPolicy(world.proj, "default", allow=["Bash(echo *)"])
    decision = policy.decide("Bash", {"command": command})
    if decision.behavior == "allow":
        env = {**os.environ, **decision.profile.env}
        subprocess.run(["bash", "-c", command], cwd=world.proj, env=env, capture_output=True)
    assert decision.behavior == "ask"
    assert not world.pwned.exists()
