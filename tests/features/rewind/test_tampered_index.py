"""A checkpoint index edited behind wave's back (a line naming a file outside the project, its
"before" blob planted) never makes a rewind write outside the project unasked."""

from __future__ import annotations

from pathlib import Path

from tests.features.rewind.test_checkpoints import agent_writes, hook_for, session_with_prompts
from wave_tui.config.paths import WavePaths
from wave_tui.features.rewind.rewind import apply_code, plan_code
from wave_tui.features.rewind.store import CheckpointStore


async def test_a_planted_record_outside_the_project_is_asked_about_never_restored(
    project: Path, tmp_path: Path
) -> None:
    root = project.resolve()
    paths = WavePaths.for_workdir(root)
    (turn,) = messages = session_with_prompts(paths, "s1", "go")
    await agent_writes(hook_for(paths, "s1", messages, []), root / "a.txt", "agent\n")
    victim = tmp_path.resolve() / "outside" / "victim.txt"
    victim.parent.mkdir()
    victim.write_text("victim\n")
    planted = CheckpointStore(paths.checkpoint_dir("s1"))
    planted.record("before", victim, b"evil\n", turn.id)
    planted.record("before", root / ".." / "outside" / "victim.txt", b"evil\n", turn.id)

    plan = plan_code(paths, "s1", 1)
    assert {p.path: p.changed_elsewhere for p in plan} == {
        root / "a.txt": False,
        victim: True,
        root / ".." / "outside" / "victim.txt": True,
    }
    done = apply_code(paths, "s1", plan, lambda _path: False)
    assert victim.read_text() == "victim\n"
    assert done.removed == (root / "a.txt",) and not (root / "a.txt").exists()
    assert set(done.left_alone) == {victim, root / ".." / "outside" / "victim.txt"}
