"""A tool's arguments as one typed definition: the JSON schema and the parsing both come from it.

A tool's arguments are a frozen dataclass whose fields carry their wire facts in `Annotated`
metadata::

    @tool_arguments
    class ReadArgs:
        file_path: Annotated[str, Arg("Path of the file to read.")]
        offset: Annotated[int | None, Arg("1-based line number …", minimum=1)] = None

`schema_of(ReadArgs)` is the JSON schema sent to the model (computed once per class);
`parse_args(ReadArgs, raw)` checks the model's arguments and raises `ToolError` with a
model-facing line. A field without a default is required; keys the class does not name are
ignored (models add them; the schema's `additionalProperties: false` asks them not to).
Plain dataclasses and `typing.get_type_hints`, no pydantic: this runs on the `wave -p` start-up path.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Generic, Literal, NamedTuple, TypeVar, Union

from wave_tui.tools.base import BaseTool, ToolContext, ToolError, ToolResult

# A digit string a model may send for an integer: one optional minus, ASCII digits only
# (`"--5"` or `"²"` pass `str.isdigit` checks yet make `int()` raise).
_DIGITS = re.compile(r"-?[0-9]+")

A = TypeVar("A")

# A pre-check hook: the raw value (never None) in, the value the type check sees out.
Normalize = Callable[[str, object], object]


class Arg(NamedTuple):
    """The wire facts of one argument; every field is optional.

    A NamedTuple, not a dataclass: built at import, and one costs an eighth of a dataclass."""

    description: str | None = None
    name: str | None = None  # the wire name, when it is no Python identifier ("-A", "type")
    minimum: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    unit: str | None = None  # named in a number's type error ("a number of seconds")
    # The Python default is also announced in the schema ("default": false).
    schema_default: bool = False
    # Listed in the schema's "required" although the parser forgives its absence.
    schema_required: bool = False
    # Lenient forms the type alone does not accept (an int task id, "" for "not given").
    normalize: Normalize | None = None


_LAZY_MARK = "__wave_tool_arguments__"


@typing.dataclass_transform(frozen_default=True)
def tool_arguments(cls: type[A]) -> type[A]:
    """Declare an arguments class: a frozen dataclass, made one on first use.

    Building a dataclass costs about 0.4 ms and `wave -p` imports every tool module, so the work waits
    for the first schema, parse or instance."""
    setattr(cls, _LAZY_MARK, True)

    def first_init(self: object, *args: object, **kwargs: object) -> None:
        made = _as_dataclass(type(self))
        made.__init__(self, *args, **kwargs)

    setattr(cls, "__init__", first_init)  # noqa: B010 - mypy refuses assigning to a method
    return cls


def _as_dataclass(cls: type[A]) -> type[A]:
    if getattr(cls, _LAZY_MARK, False) and not dataclasses.is_dataclass(cls):
        delattr(cls, "__init__")  # else the dataclass would keep the stand-in
        dataclasses.dataclass(frozen=True)(cls)
    return cls


def _is_arguments_class(kind: Any) -> bool:
    return isinstance(kind, type) and (
        dataclasses.is_dataclass(kind) or getattr(kind, _LAZY_MARK, False)
    )


class _Field(NamedTuple):
    attr: str  # the dataclass field
    key: str  # the wire name
    kind: Any  # the type without `| None` and Annotated (None always means "not given")
    arg: Arg
    default: object  # dataclasses.MISSING when required


# Built once per class, on first use (never at import), kept for the process. Plain dicts, as
# mypy does not take a class for functools.cache's Hashable.
_FIELDS: dict[type[Any], tuple[_Field, ...]] = {}
_SCHEMAS: dict[type[Any], dict[str, Any]] = {}


def _fields(cls: type[Any]) -> tuple[_Field, ...]:
    cached = _FIELDS.get(cls)
    if cached is None:
        cached = _FIELDS[cls] = _read_fields(cls)
    return cached


def _read_fields(cls: type[Any]) -> tuple[_Field, ...]:
    # From the annotations and class attributes, not dataclasses.fields: a schema needs no
    # dataclass built (that waits for the first parse), and the defaults are plain values.
    fields: list[_Field] = []
    for attr, hint in typing.get_type_hints(cls, include_extras=True).items():
        arg = Arg()
        if typing.get_origin(hint) is typing.Annotated:
            hint, *extras = typing.get_args(hint)
            arg = next((x for x in extras if isinstance(x, Arg)), arg)
        default = cls.__dict__.get(attr, dataclasses.MISSING)
        fields.append(_Field(attr, arg.name or attr, _without_none(hint), arg, default))
    if dataclasses.is_dataclass(cls) and any(
        f.default_factory is not dataclasses.MISSING for f in dataclasses.fields(cls)
    ):
        raise TypeError(f"{cls.__name__}: arguments take plain defaults, not default_factory")
    return tuple(fields)


def _without_none(hint: Any) -> Any:
    if typing.get_origin(hint) in (Union, types.UnionType):
        rest = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return hint


@tool_arguments
class NoArgs:
    """The arguments of a tool that takes none."""


# -- the schema -------------------------------------------------------------------------------


def schema_of(cls: type[Any]) -> dict[str, Any]:
    """The JSON schema of an arguments class. Key order is part of the bytes the model gets."""
    cached = _SCHEMAS.get(cls)
    if cached is None:
        cached = _SCHEMAS[cls] = _build_schema(cls)
    return cached


def _build_schema(cls: type[Any]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for f in _fields(cls):
        properties[f.key] = _property(f)
        if f.default is dataclasses.MISSING or f.arg.schema_required:
            required.append(f.key)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _property(f: _Field) -> dict[str, Any]:
    prop = _type_schema(f.kind)
    if f.arg.minimum is not None:
        prop["minimum"] = f.arg.minimum
    if f.arg.min_items is not None:
        prop["minItems"] = f.arg.min_items
    if f.arg.max_items is not None:
        prop["maxItems"] = f.arg.max_items
    if "items" in prop:
        prop["items"] = prop.pop("items")  # after the bounds, as the schemas always had it
    if f.arg.schema_default:
        prop["default"] = f.default
    if f.arg.description is not None:
        prop["description"] = f.arg.description
    return prop


def _type_schema(kind: Any) -> dict[str, Any]:
    if kind is str:
        return {"type": "string"}
    if kind is bool:
        return {"type": "boolean"}
    if kind is int:
        return {"type": "integer"}
    if kind is float:
        return {"type": "number"}
    if typing.get_origin(kind) is Literal:
        return {"type": "string", "enum": list(typing.get_args(kind))}
    if typing.get_origin(kind) is tuple:
        return {"type": "array", "items": _type_schema(_item_type(kind))}
    if _is_arguments_class(kind):
        return schema_of(kind)
    raise TypeError(f"no JSON schema for argument type {kind!r}")


def _item_type(kind: Any) -> Any:
    item, ellipsis = typing.get_args(kind)
    if ellipsis is not Ellipsis:
        raise TypeError(f"arguments take tuple[T, ...], not {kind!r}")
    return item


# -- parsing ----------------------------------------------------------------------------------


def parse_args(cls: type[A], raw: dict[str, Any]) -> A:
    """The model's arguments as a `cls`; a ToolError names the first field that is wrong."""
    values: dict[str, object] = {}
    for f in _fields(cls):
        value = raw.get(f.key)
        if value is not None and f.arg.normalize is not None:
            value = f.arg.normalize(f.key, value)
        if value is None:
            if f.default is dataclasses.MISSING:
                raise ToolError(f"Missing required parameter `{f.key}`.")
            values[f.attr] = f.default
        else:
            values[f.attr] = _checked(f, f.kind, value)
    return cls(**values)


def _checked(f: _Field, kind: Any, value: object) -> object:
    key = f.key
    if kind is str:
        if not isinstance(value, str):
            raise ToolError(f"Parameter `{key}` must be a string, got {type(value).__name__}.")
        return value
    if kind is bool:
        return _boolean(key, value)
    if kind is int:
        return _integer(key, value, f.arg.minimum)
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            unit = f" of {f.arg.unit}" if f.arg.unit else ""
            raise ToolError(f"Parameter `{key}` must be a number{unit}, got {value!r}.")
        return float(value)
    if typing.get_origin(kind) is Literal:
        choices = typing.get_args(kind)
        if not isinstance(value, str):
            raise ToolError(f"Parameter `{key}` must be a string, got {type(value).__name__}.")
        if value not in choices:
            raise ToolError(f"{key} must be one of {', '.join(choices)}; got {value!r}.")
        return value
    if typing.get_origin(kind) is tuple:
        return _array(f, _item_type(kind), value)
    if _is_arguments_class(kind):
        if isinstance(value, kind):
            return value
        if not isinstance(value, dict):
            raise ToolError(f"Parameter `{key}` must be an object, got {type(value).__name__}.")
        return parse_args(kind, value)
    raise TypeError(f"cannot parse argument type {kind!r}")


def _array(f: _Field, item: Any, value: object) -> tuple[object, ...]:
    if not isinstance(value, list | tuple):
        raise ToolError(f"Parameter `{f.key}` must be a list, got {type(value).__name__}.")
    low, high = f.arg.min_items, f.arg.max_items
    if (low is not None and len(value) < low) or (high is not None and len(value) > high):
        bounds = f"{low or 0} to {high}" if high is not None else f"at least {low}"
        raise ToolError(f"Parameter `{f.key}` must list {bounds} items, got {len(value)}.")
    return tuple(_checked(f, item, x) for x in value)


def _integer(key: str, value: object, minimum: int | None) -> int:
    # Models send integral floats and digit strings for integers: both are accepted.
    if isinstance(value, bool):
        raise ToolError(f"Parameter `{key}` must be an integer, got a boolean.")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        value = int(value.strip())
    if not isinstance(value, int):
        raise ToolError(f"Parameter `{key}` must be an integer, got {value!r}.")
    if minimum is not None and value < minimum:
        raise ToolError(f"Parameter `{key}` must be at least {minimum}, got {value}.")
    return value


def _boolean(key: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ToolError(f"Parameter `{key}` must be a boolean, got {value!r}.")


# -- a tool defined by its arguments class ----------------------------------------------------


class TypedTool(BaseTool, Generic[A]):
    """A tool whose `parameters` and argument checks both come from `arguments`."""

    arguments: type[A]

    @property
    def parameters(self) -> dict[str, Any]:
        return schema_of(self.arguments)

    async def _run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await self.call(parse_args(self.arguments, args), ctx)

    async def call(self, args: A, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError

    async def refusal(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """The error the call would end in before it changes anything, or None (`ValidatesFirst`):
        its arguments, then the tool's own `check`."""
        try:
            await self.check(parse_args(self.arguments, args), ctx)
        except ToolError as exc:
            return str(exc)
        except (OSError, ValueError) as exc:
            return f"{self.name} failed: {type(exc).__name__}: {exc}"
        return None

    async def check(self, args: A, ctx: ToolContext) -> None:
        """Raise the ToolError `call` would raise before it changes anything (default: none)."""
        return None
