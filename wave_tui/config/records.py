"""`@record`: wave's dataclass, a third cheaper to define.

`@dataclass(frozen=True)` makes six methods per class by compiling source text: 3.4 M
instructions a class on CPython 3.11-3.13 (`tests/bench/test_bench_startup.py` prints it), most
of what importing wave's own modules cost (~130 classes load before a `wave -p` answers). A
record is a dataclass — `dataclasses.fields`, `replace`, `asdict` and its generated `__init__`
as usual — whose `__repr__`, `__eq__`, `__hash__` and, when frozen, `__setattr__` and
`__delattr__` (raising `FrozenInstanceError`) are shared by every record instead of compiled per
class. They behave as the generated ones do (`test_records.py` compares them): the fields in
order, a field's `repr`/`compare`/`hash` flags honoured, equality only between instances of one
class, a field assigned once by `__init__` and never again, and what a class body defines itself
left alone. The generated `__init__` itself is compiled on the class's first instantiation, not
when the class is defined (most record classes a `wave -p` imports are never instantiated).
One difference: a class without a docstring gets its name as `__doc__`, not the signature text
dataclass computes for it (`inspect.signature`, ~40 µs a class).
"""

from __future__ import annotations

import dataclasses
import reprlib
import sys
from collections.abc import Callable
from typing import Any, TypeVar, cast, dataclass_transform, overload

_T = TypeVar("_T", bound=type)

_REPR = "__record_repr_fields__"
_COMPARE = "__record_compare_fields__"
_HASH = "__record_hash_fields__"
_FROZEN = "__record_frozen_fields__"  # on each frozen record class itself, not inherited
_DEFERRED = "__record_deferred_init__"  # marks the placeholder `__init__` until the first call


def _values(obj: object, names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple([getattr(obj, name) for name in names])


@reprlib.recursive_repr()
def _repr(self: object) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in getattr(self, _REPR))
    return f"{type(self).__qualname__}({shown})"


def _eq(self: object, other: object) -> bool:
    if other.__class__ is not self.__class__:
        different: bool = NotImplemented  # Python then asks `other`, as for any dataclass
        return different
    names: tuple[str, ...] = getattr(self, _COMPARE)
    return _values(self, names) == _values(other, names)


def _hash(self: object) -> int:
    return hash(_values(self, getattr(self, _HASH)))


def _is_set(obj: object, name: str) -> bool:
    """`name` holds a value on `obj` itself (not a class default)."""
    try:
        return name in object.__getattribute__(obj, "__dict__")
    except AttributeError:  # slotted: an unset slot raises
        try:
            object.__getattribute__(obj, name)
        except AttributeError:
            return False
        return True


# The generated `__init__` of a non-frozen dataclass assigns each field once, through these;
# any later assignment or deletion fails as on a frozen dataclass. `_FROZEN` is on each record
# class itself: a plain subclass may set attributes of its own, as with a frozen dataclass.
def _frozen_setattr(self: object, name: str, value: Any) -> None:
    own: frozenset[str] | None = type(self).__dict__.get(_FROZEN)  # type(self) is the record
    fields = own if own is not None else getattr(type(self), _FROZEN)
    if (own is not None or name in fields) and (name not in fields or _is_set(self, name)):
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self: object, name: str) -> None:
    if _FROZEN in type(self).__dict__ or name in getattr(type(self), _FROZEN):
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _finish(cls: _T, own: dict[str, Any], frozen: bool, *, shared_setattr: bool) -> _T:
    """Give `cls` the shared methods, except what its body defines itself (as dataclass does)."""
    fields = dataclasses.fields(cls)
    setattr(cls, _REPR, tuple(f.name for f in fields if f.repr))
    setattr(cls, _COMPARE, tuple(f.name for f in fields if f.compare))
    setattr(cls, _HASH, tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))
    if shared_setattr:
        setattr(cls, _FROZEN, frozenset(f.name for f in fields))
        cls.__setattr__ = _frozen_setattr  # type: ignore[assignment]
        cls.__delattr__ = _frozen_delattr  # type: ignore[assignment]
    if "__repr__" not in own:
        cls.__repr__ = _repr  # type: ignore[assignment]
    if "__eq__" not in own:
        cls.__eq__ = _eq  # type: ignore[assignment]
    # A body with __eq__ but no __hash__ has __hash__ = None put there by Python: not explicit.
    explicit_hash = own.get("__hash__") is not None or ("__hash__" in own and "__eq__" not in own)
    if not explicit_hash:
        # Mutable: unhashable, as a dataclass with eq and without frozen is.
        cls.__hash__ = _hash if frozen else None  # type: ignore[assignment]
    return cls


# The generated `__init__` is the one method a record still compiles (≈ 90 µs: dataclass writes
# its source and execs it), and most record classes a process imports are never instantiated.
# So it is compiled on the class's first instantiation and replaces the placeholder for good.
def _deferred_init(
    cls: type[Any], own: dict[str, Any], frozen: bool, slots: bool
) -> Callable[..., None]:
    def __init__(self: object, *args: Any, **kwargs: Any) -> None:
        _compiled_init(cls, own, frozen, slots)(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    setattr(__init__, _DEFERRED, True)
    return __init__


# CPython 3.11 and 3.12 make `__init__` with `dataclasses._init_fn` from the fields the class
# already holds; elsewhere (its signature changed in 3.13) a stand-in class with the same body
# is put through dataclass, which costs a second pass over the fields.
_INIT_FROM_FIELDS = sys.version_info[:2] in ((3, 11), (3, 12))


def _compiled_init(
    cls: type[Any], own: dict[str, Any], frozen: bool, slots: bool
) -> Callable[..., None]:
    current = cls.__dict__["__init__"]
    if not getattr(current, _DEFERRED, False):
        return cast(Callable[..., None], current)  # another thread compiled it meanwhile
    if _INIT_FROM_FIELDS:
        compiled = _init_from_fields(cls, frozen, slots)
    else:
        compiled = _init_of_stand_in(cls, own, frozen, slots)
    setattr(cls, "__init__", compiled)  # noqa: B010 - mypy refuses assigning to a method
    return compiled


def _init_from_fields(cls: type[Any], frozen: bool, slots: bool) -> Callable[..., None]:
    """What `dataclasses._process_class` does for `init=True`, with the fields it recorded."""
    fields: dict[str, Any] = getattr(cls, "__dataclass_fields__")  # noqa: B009
    kinds = (getattr(dataclasses, "_FIELD"), getattr(dataclasses, "_FIELD_INITVAR"))  # noqa: B009
    in_init = [f for f in fields.values() if f._field_type in kinds]
    std, kw_only = getattr(dataclasses, "_fields_in_init_order")(in_init)  # noqa: B009
    module = sys.modules.get(cls.__module__)
    compiled: Callable[..., None] = getattr(dataclasses, "_init_fn")(  # noqa: B009
        in_init,
        std,
        kw_only,
        frozen,
        hasattr(cls, "__post_init__"),
        "__dataclass_self__" if "self" in fields else "self",
        module.__dict__ if module is not None else {},
        slots,
    )
    compiled.__qualname__ = f"{cls.__qualname__}.{compiled.__name__}"
    return compiled


def _init_of_stand_in(
    cls: type[Any], own: dict[str, Any], frozen: bool, slots: bool
) -> Callable[..., None]:
    annotations = own.get("__annotations__", {})
    body = {name: own[name] for name in annotations if name in own}
    if "__post_init__" in own:
        body["__post_init__"] = own["__post_init__"]
    body.update(
        __annotations__=annotations,
        __module__=cls.__module__,
        __qualname__=cls.__qualname__,
        __doc__=cls.__name__,
    )
    stand_in: type[Any] = dataclasses.dataclass(frozen=frozen, repr=False, eq=False, slots=slots)(
        type(cls.__name__, cls.__bases__, body)
    )
    compiled: Callable[..., None] = stand_in.__init__
    return compiled


@overload
def record(cls: _T, /) -> _T: ...
@overload
def record(
    *, frozen: bool = True, slots: bool = False, bulk: bool = False
) -> Callable[[_T], _T]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def record(
    cls: _T | None = None, /, *, frozen: bool = True, slots: bool = False, bulk: bool = False
) -> _T | Callable[[_T], _T]:
    """`@record`: a frozen dataclass (see the module docstring); `@record(frozen=False)` a
    mutable one (unhashable, as a mutable dataclass is), `@record(slots=True)` a slotted one.

    `bulk=True` for a type made by the thousand (memory entries, rules, found files): its
    `__init__` assigns at C speed, as a frozen dataclass's does (~0.15 µs a field instead of
    ~0.9 µs through the shared `__setattr__`), for two more methods compiled when it is defined.
    """

    def wrap(target: _T) -> _T:
        own = dict(target.__dict__)
        shared_setattr = frozen and not bulk
        for name in ("__setattr__", "__delattr__"):
            if shared_setattr and name in own:  # as dataclass(frozen=True) refuses it
                raise TypeError(f"Cannot overwrite attribute {name} in class {target.__name__}")
        if not own.get("__doc__"):
            # Without a docstring, dataclass writes one from inspect.signature: ≈ 40 µs a class,
            # and `wave -p` defines more than a hundred of them before its first request.
            target.__doc__ = target.__name__
        # Frozen by the shared methods above, or (bulk) by the dataclass's own generated ones.
        made: type[Any] = dataclasses.dataclass(
            init=False, frozen=frozen and bulk, repr=False, eq=False, slots=slots
        )(target)
        if "__init__" not in own:  # a body's own __init__ is left alone, as dataclass does
            setattr(made, "__init__", _deferred_init(made, own, frozen and bulk, slots))  # noqa: B010
        return _finish(cast(_T, made), own, frozen, shared_setattr=shared_setattr)

    return wrap if cls is None else wrap(cls)
