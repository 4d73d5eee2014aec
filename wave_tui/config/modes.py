"""The permission modes: one literal, in a module that imports nothing heavy.

The command line offers them as `--permission-mode` choices before it knows whether it will
need the settings schema (`wave --version`, `--help`), so they live apart from pydantic.
"""

from __future__ import annotations

from typing import Literal, get_args

PermissionMode = Literal["default", "acceptEdits", "bypassPermissions", "plan"]
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
