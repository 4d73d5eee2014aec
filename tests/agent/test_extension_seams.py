"""Explicit registration: an extension is filed only for the seams its registration names, and
only when it implements them; a registration without a seam fails at wiring time."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

import pytest

import wave_tui
import wave_tui.agent.extensions as ext
from tests.agent.test_extensions import SLOTS
from wave_tui.tools.base import Tool

pytestmark = pytest.mark.req("CB1")

SEAMS = {protocol.__name__ for protocol in SLOTS.values()}


class _Lookalike:
    """A plain class whose methods happen to share the names of three seams' methods."""

    def tools(self) -> Sequence[Tool]:
        return []

    async def check(self, call: ext.ToolCallInfo) -> str | None:
        return None

    def status(self) -> ext.StatusContribution:
        return ext.StatusContribution()


class _Plain:
    def helper(self) -> None:
        return None


def _filed(registry: ext.Extensions, extension: object) -> set[str]:
    return {
        name
        for name, value in vars(registry).items()
        if name != "all" and any(e is extension for e in value)
    }


def test_a_lookalike_is_filed_only_for_the_seam_named() -> None:
    registry = ext.Extensions()
    lookalike = _Lookalike()
    registry.add(lookalike, ext.ToolGuard)
    assert _filed(registry, lookalike) == {"guards"}
    assert registry.tool_providers == [] and registry.status_sources == []


def test_an_object_without_a_seams_method_cannot_be_registered_for_it() -> None:
    registry = ext.Extensions()
    with pytest.raises(TypeError, match="_Plain does not implement ToolGuard: no check"):
        registry.add(_Plain(), ext.ToolGuard)  # type: ignore[arg-type]
    # One seam it lacks refuses the whole registration: nothing half-filed.
    with pytest.raises(TypeError, match="_Lookalike does not implement TurnObserver"):
        registry.add(_Lookalike(), ext.ToolGuard, ext.TurnObserver)
    assert registry.all == [] and registry.guards == []


def test_a_registration_without_a_seam_fails() -> None:
    registry = ext.Extensions()
    with pytest.raises(TypeError, match="_Lookalike: name the seams it serves"):
        registry.add(_Lookalike())
    assert registry.all == []


def test_only_the_protocols_of_agent_extensions_are_seams() -> None:
    registry = ext.Extensions()
    with pytest.raises(TypeError, match="_Lookalike is not a seam of agent"):
        registry.add(_Lookalike(), _Lookalike)
    assert registry.all == []


def test_a_seam_named_twice_is_filed_once() -> None:
    registry = ext.Extensions()
    lookalike = _Lookalike()
    registry.add(lookalike, ext.StatusSource, ext.StatusSource)
    assert registry.status_sources == [lookalike] and registry.all == [lookalike]


def test_every_registration_in_the_code_names_its_seams() -> None:
    """Each `add_extension(obj, Seam, …)` of the package names one seam at least, each a
    protocol of agent.extensions by name (read from the source: every wiring site, also those
    a test session does not reach)."""
    root = Path(wave_tui.__file__).parent
    sites = 0
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_extension"
            ):
                continue
            where = f"{path.relative_to(root)}:{node.lineno}"
            if isinstance(node.args[0], ast.Name) and node.args[0].id == "extension":
                continue  # the service's own pass-through to `Extensions.add`
            sites += 1
            seams = node.args[1:]
            assert seams, f"{where}: no seam named"
            names = {seam.id for seam in seams if isinstance(seam, ast.Name)}
            assert len(names) == len(seams) and names <= SEAMS, where
    assert sites > 20
