"""`@record` behaves as the dataclass it replaces: each check runs the same
class body through `@record` and through `@dataclass`, and compares what a caller can see."""

from __future__ import annotations

import copy
import dataclasses
import inspect
from dataclasses import KW_ONLY, InitVar, dataclass, field
from functools import partial
from typing import Any

import pytest

from wave_tui.config import records
from wave_tui.config.records import record


def _pair(frozen: bool, slots: bool = False, bulk: bool = False) -> tuple[type[Any], type[Any]]:
    def body() -> type[Any]:
        class Item:
            name: str
            size: int = 0
            tags: list[str] = field(default_factory=list)
            secret: str = field(default="", repr=False)
            note: str = field(default="", compare=False)

        return Item

    ours = record(frozen=frozen, slots=slots, bulk=bulk)(body())
    theirs = dataclass(frozen=frozen, slots=slots)(body())
    return ours, theirs


@pytest.mark.parametrize(("frozen", "bulk"), [(True, False), (True, True), (False, False)])
def test_a_record_reprs_compares_and_hashes_as_a_dataclass(frozen: bool, bulk: bool) -> None:
    ours, theirs = _pair(frozen, bulk=bulk)
    a, b = ours("x", 1, ["t"], "s", "n"), theirs("x", 1, ["t"], "s", "n")
    assert (
        repr(a)
        == repr(b)
        == "_pair.<locals>.body.<locals>.Item(name='x', size=1, tags=['t'], note='n')"
    )
    # `note` is compare=False: ignored; `secret` is repr=False only: compared
    assert a == ours("x", 1, ["t"], "s", "another note")
    assert b == theirs("x", 1, ["t"], "s", "another note")
    assert a != ours("x", 1, ["t"], "other secret", "n")
    assert b != theirs("x", 1, ["t"], "other secret", "n")
    assert a != b  # never equal across classes, like two dataclasses
    assert (ours.__hash__ is None) == (theirs.__hash__ is None) == (not frozen)
    if frozen:
        c, d = ours("x", 1, (), "s"), theirs("x", 1, (), "s")  # type: ignore[arg-type]
        assert hash(c) == hash(d) == hash(ours("x", 1, (), "s", "a note"))  # type: ignore[arg-type]
        with pytest.raises(dataclasses.FrozenInstanceError):
            c.name = "y"
    assert [f.name for f in dataclasses.fields(a)] == [f.name for f in dataclasses.fields(b)]
    assert dataclasses.asdict(a) == dataclasses.asdict(b)
    assert dataclasses.replace(a, size=2) == ours("x", 2, ["t"], "s", "n")
    assert ours.__match_args__ == theirs.__match_args__
    # The one difference: a class without a docstring is documented by its name, not by the
    # signature dataclass would compute for it (inspect.signature, ~40 µs a class at import).
    assert ours.__doc__ == "Item" and theirs.__doc__.startswith("Item(name: ")


def test_a_slotted_record_has_slots_and_copies() -> None:
    ours, theirs = _pair(frozen=True, slots=True)
    assert ours.__slots__ == theirs.__slots__
    item = ours("x", 1, [], "s")
    assert copy.deepcopy(item) == item
    assert not hasattr(item, "__dict__")


def test_a_record_keeps_what_its_body_defines() -> None:
    @record
    class Shown:
        value: int

        def __repr__(self) -> str:
            return f"<{self.value}>"

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Shown) and other.value % 10 == self.value % 10

        def __hash__(self) -> int:
            return self.value % 10

    assert repr(Shown(3)) == "<3>"
    assert Shown(3) == Shown(13)
    assert hash(Shown(13)) == 3


def test_a_record_that_holds_itself_reprs_without_recursing() -> None:
    @record(frozen=False)
    class Node:
        children: list[Any] = field(default_factory=list)

    node = Node()
    node.children.append(node)
    assert (
        repr(node)
        == "test_a_record_that_holds_itself_reprs_without_recursing.<locals>.Node(children=[...])"
    )


@pytest.mark.parametrize("bulk", [False, True])
@pytest.mark.parametrize("slots", [False, True])
def test_a_frozen_record_refuses_what_a_frozen_dataclass_refuses(slots: bool, bulk: bool) -> None:
    ours, theirs = _pair(frozen=True, slots=slots, bulk=bulk)
    for cls in (ours, theirs):
        item = cls("x", 1)
        attempts = [
            partial(setattr, item, "name", "y"),  # a field
            partial(setattr, item, "size", 2),  # a field with a class default
            partial(delattr, item, "name"),
        ]
        if not slots:  # CPython's own slotted frozen dataclass fails there with a TypeError
            attempts.append(partial(setattr, item, "other", 1))  # not a field
        for attempt in attempts:
            with pytest.raises(dataclasses.FrozenInstanceError):
                attempt()
        assert (item.name, item.size) == ("x", 1)
        assert copy.copy(item) == item == copy.deepcopy(item)
        assert dataclasses.replace(item, size=3).size == 3


def test_a_plain_subclass_of_a_frozen_record_may_add_attributes_but_not_change_fields() -> None:
    ours, theirs = _pair(frozen=True)
    for cls in (ours, theirs):

        class Sub(cls):  # type: ignore[misc, valid-type]
            pass

        item = Sub("x")
        item.extra = 1
        assert item.extra == 1
        with pytest.raises(dataclasses.FrozenInstanceError):
            item.name = "y"


def test_a_frozen_record_body_may_not_define_setattr() -> None:
    with pytest.raises(TypeError, match="Cannot overwrite attribute __setattr__"):

        @record
        class Settable:
            value: int

            def __setattr__(self, name: str, value: Any) -> None:
                object.__setattr__(self, name, value)


@pytest.mark.parametrize("from_fields", [True, False], ids=["from-fields", "stand-in"])
def test_a_records_init_is_compiled_on_first_use_and_then_is_the_dataclass_one(
    from_fields: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defined: fields known, no `__init__` compiled yet. First instance: the compiled one
    replaces the placeholder, with the dataclass's signature, defaults and post-init — made
    from the recorded fields (CPython 3.11, 3.12) or through a stand-in class (elsewhere)."""
    monkeypatch.setattr(records, "_INIT_FROM_FIELDS", from_fields)

    def body() -> type[Any]:
        class Item:
            name: str
            tags: list[str] = field(default_factory=list)
            scale: InitVar[int] = 1
            _: KW_ONLY
            size: int = 0

            def __post_init__(self, scale: int) -> None:
                object.__setattr__(self, "size", self.size * scale)

        return Item

    for bulk in (False, True):
        ours, theirs = record(bulk=bulk)(body()), dataclass(frozen=True)(body())
        assert [f.name for f in dataclasses.fields(ours)] == ["name", "tags", "size"]
        placeholder = ours.__dict__["__init__"]
        a, b = ours("x", ["t"], 3, size=2), theirs("x", ["t"], 3, size=2)
        assert ours.__dict__["__init__"] is not placeholder
        assert inspect.signature(ours) == inspect.signature(theirs)
        assert (a.name, a.tags, a.size) == (b.name, b.tags, b.size) == ("x", ["t"], 6)
        assert ours("y").tags is not ours("y").tags  # a fresh default per instance
        with pytest.raises(TypeError, match="missing 1 required positional argument: 'name'"):
            ours()


def test_a_plain_subclass_instantiated_first_compiles_its_records_init() -> None:
    @record
    class Base:
        name: str
        size: int = 0

    class Sub(Base):
        pass

    assert Sub("x", 2) == Sub("x", 2) and Sub("x").size == 0
    assert Base("x", 2).name == "x"  # the base's own init is the compiled one now
    assert "__init__" not in Sub.__dict__


@pytest.mark.parametrize("from_fields", [True, False], ids=["from-fields", "stand-in"])
def test_a_slotted_records_init_sets_its_init_false_defaults(
    from_fields: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records, "_INIT_FROM_FIELDS", from_fields)

    def body() -> type[Any]:
        class Item:
            name: str
            count: int = field(default=3, init=False)

        return Item

    ours, theirs = record(slots=True)(body()), dataclass(frozen=True, slots=True)(body())
    assert (ours("x").name, ours("x").count) == (theirs("x").name, theirs("x").count) == ("x", 3)
