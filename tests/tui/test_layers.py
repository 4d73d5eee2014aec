"""Layering: only `wave_tui/tui/` may import Textual (the engine stays UI-free)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "wave_tui"
TEXTUAL_IMPORT = re.compile(r"^\s*(from|import)\s+textual\b", re.MULTILINE)


def test_no_textual_outside_the_tui_package() -> None:
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "tui" not in path.relative_to(PACKAGE).parts[:1]
        and TEXTUAL_IMPORT.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_tui_helpers_do_not_import_textual() -> None:
    for name in ("format.py", "memory_view.py"):
        assert not TEXTUAL_IMPORT.search((PACKAGE / "tui" / name).read_text(encoding="utf-8"))


WAVE_IMPORT = re.compile(r"^\s*(?:from|import)\s+(wave_tui(?:\.\w+)*)", re.MULTILINE)
FACADE = (
    "wave_tui.session.facade",
    "wave_tui.session.types",
    "wave_tui.agent.events",
    "wave_tui.agent.status",
)
# Types and paths only (WavePaths, SettingsStore for the watch, the permission modes, the
# settings schema's constants), `@record` for the app's own data; `wave_tui` for `__version__`;
# the one terminal-text sanitiser every output boundary applies.
ALSO_ALLOWED = (
    "wave_tui.config.terminal_text",
    "wave_tui.config.paths",
    "wave_tui.config.settings",
    "wave_tui.config.schema",
    "wave_tui.config.modes",
    "wave_tui.config.records",
    "wave_tui.config.clock",
    # `wave daemon`'s client: a socket and its JSON lines, no agent behind them in this process
    # (the daemon's own process starts through `serve`, which the facade's rule does not cover).
    "wave_tui.session.daemon.client",
    "wave_tui.session.daemon.protocol",
    "wave_tui.session.daemon.server",
)


@pytest.mark.req("U1")
def test_u1_front_ends_reach_the_agent_only_through_the_session_facade() -> None:
    offenders = []
    for package in ("tui", "cli"):
        for path in (PACKAGE / package).rglob("*.py"):
            source = path.read_text(encoding="utf-8")
            source = source.replace(
                "from wave_tui.agent import events", "import wave_tui.agent.events"
            )
            for module in WAVE_IMPORT.findall(source):
                # The command line starts the other front ends: the app and `wave --acp`.
                own = (
                    ("wave_tui.tui", "wave_tui.cli", "wave_tui.acp")
                    if package == "cli"
                    else ("wave_tui.tui",)
                )
                if module == "wave_tui" or module.startswith((*own, *FACADE, *ALSO_ALLOWED)):
                    continue
                offenders.append(f"{path.relative_to(PACKAGE)}: {module}")
    assert offenders == []


SERVICE_READ = re.compile(r"\.service\b")
FACADE_IMPORT = re.compile(r"from wave_tui\.session\.facade import (?:\(([^)]*)\)|([^\n(]+))")


@pytest.mark.req("U1")
def test_u1_front_ends_never_read_the_service_behind_the_session() -> None:
    """What the CLI prints comes from the status and the run report, not `session.service`."""
    offenders = [
        f"{path.relative_to(PACKAGE)}:{n}"
        for package in ("tui", "cli")
        for path in (PACKAGE / package).rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SERVICE_READ.search(line)
    ]
    assert offenders == []


@pytest.mark.req("U1")
def test_u1_front_ends_take_the_data_types_from_the_one_types_module() -> None:
    from wave_tui.session import types

    offenders = []
    for package in ("tui", "cli"):
        for path in (PACKAGE / package).rglob("*.py"):
            for found in FACADE_IMPORT.findall(path.read_text(encoding="utf-8")):
                for name in (n.strip() for n in "".join(found).replace("\n", " ").split(",")):
                    if name in types.__all__:
                        offenders.append(f"{path.relative_to(PACKAGE)}: {name}")
    assert offenders == []


def test_the_types_module_is_a_leaf_with_no_behaviour() -> None:
    """Importing it loads no other wave_tui module but the one lazy-export helper, and it
    defines nothing of its own."""
    source = (PACKAGE / "session" / "types.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    defined = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    assert defined == []
    probe = (
        "import sys; before = set(sys.modules); import wave_tui.session.types; "
        "print(sorted(m for m in set(sys.modules) - before if m.startswith('wave_tui.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == (
        "['wave_tui.config', 'wave_tui.config.lazy_exports', 'wave_tui.session', "
        "'wave_tui.session.types']"
    )
    from wave_tui.session import types

    for name in types.__all__:  # every name resolves to its home
        assert getattr(types, name) is not None, name
