"""Copying a plugin's folder into the cache: regular files and folders only, never anything
that leads out of the plugin.

A plugin (from a market's folder or a git clone) may hold a link to `~/credentials`; copied as
a link, or followed, it would be installed and served to the model as the plugin's own file
(a skill, a command). A link whose target stays inside the plugin is copied as the file it
names; a link that leaves it, a linked folder (which could loop) and anything that is not a
regular file (a FIFO, a device) are left behind.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

SKIPPED_NAMES = frozenset({".git"})


# req: HR9
def copy_plugin_tree(source: Path, target: Path) -> None:
    """Copy `source` to `target` (which must not exist) as regular files inside `source`."""
    root = source.resolve()
    _copy_folder(root, root, target)


def _copy_folder(root: Path, folder: Path, target: Path) -> None:
    target.mkdir()
    with os.scandir(folder) as entries:
        children = sorted(entries, key=lambda e: e.name)
    for entry in children:
        if entry.name in SKIPPED_NAMES:
            continue
        child = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            _copy_folder(root, child, target / entry.name)
            continue
        real = child.resolve() if entry.is_symlink() else child
        if not real.is_relative_to(root) or not real.is_file() or real.is_symlink():
            continue  # out of the plugin, a linked folder, a dangling link or no regular file
        shutil.copy2(real, target / entry.name)  # the mode too: hook scripts stay executable
