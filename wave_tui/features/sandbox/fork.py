"""The extraction fork's Bash in the sandbox: only the memory folder writable, no network.

The fork runs only read-only commands already (its gate); running them under bubblewrap as well
means a prompt-injected fork needs two holes, not one, to change anything outside its folder.
It applies wherever `bwrap` is, whatever `sandbox.enabled` says.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from wave_tui.features.sandbox.bwrap import bwrap_path, sandbox_argv
from wave_tui.permissions.policy import RunProfile


# req: SB6
def fork_bash_profile(profile: RunProfile, memory_dir: Path) -> RunProfile:
    """`profile` running under the sandbox with only `memory_dir` writable (no bwrap: as is)."""
    bwrap = bwrap_path()
    if bwrap is None:
        return profile
    prefix = sandbox_argv(bwrap, [memory_dir], network=False, private_tmp=False)
    return replace(profile, command_prefix=prefix)
