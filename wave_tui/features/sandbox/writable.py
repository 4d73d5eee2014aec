"""Which `sandbox.writablePaths` entries the sandbox opens, and which it refuses.

An entry is refused when it is relative, the root, the home folder or a folder above it, or
anything under a dot entry of the home folder: `~/.bashrc`, `~/.profile`, `~/.ssh`, `~/.wave`,
`~/.config`, `~/.local` (its `bin` is on PATH)… A command that could write there without asking
would run its code in the user's next shell, sign with their keys or rewrite wave's own
settings; the settings cannot open them, whoever wrote the settings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from wave_tui.config.records import record
from wave_tui.files.real_paths import is_inside, real_path


@record
class WritableChoice:
    """The folders opened, and the entries refused with why."""

    kept: tuple[Path, ...]
    refused: tuple[str, ...]


def _refusal(real: Path | None, home: Path) -> str | None:
    if real is None:
        return "not an absolute path"
    if real == Path("/") or is_inside(home, real):
        return "it would open the home folder"
    if is_inside(real, home):
        first = real.relative_to(home).parts[0]
        if first.startswith("."):
            return f"~/{first} stays read-only"
    return None


# req: HR5
def writable_paths(entries: Sequence[str], home: Path) -> WritableChoice:
    """The entries (absolute or `~/…`) the sandbox may open, resolved."""
    kept: list[Path] = []
    refused: list[str] = []
    real_home = real_path(home) or home
    for entry in entries:
        path = Path(entry.replace("~", str(home), 1) if entry.startswith("~") else entry)
        real = real_path(path) if path.is_absolute() else None
        reason = _refusal(real, real_home)
        if reason is not None or real is None:
            refused.append(f"{entry} ({reason})")
        else:
            kept.append(real)
    return WritableChoice(tuple(kept), tuple(refused))
