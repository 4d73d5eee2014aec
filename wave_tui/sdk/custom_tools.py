"""`@tool`: a typed Python function as a tool the model can call (custom tools).

The function's signature is the tool's arguments: each parameter becomes a field of an
arguments class built on the fly, so the JSON schema the model gets and the checks of what it
sends come from the same typed definition the built-in tools use (`tools/arguments.py`).
`Annotated[T, "description"]` (or `Annotated[T, Arg(...)]`) describes a parameter; the
docstring's first paragraph describes the tool. `list[T]` is taken as a JSON array. The
function may be sync or async; what it returns becomes the result's text (a str as it is,
anything else as JSON); an exception becomes an error result for the model, never a crash.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import typing
from collections.abc import Callable
from typing import Annotated, Any

from wave_tui.tools.arguments import Arg, TypedTool, schema_of, tool_arguments
from wave_tui.tools.base import ToolContext, ToolResult, error_result

_NAME_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def _field_hint(name: str, hint: Any) -> Any:
    """The parameter's type as the arguments class takes it (a description str → Arg)."""
    arg = Arg()
    if typing.get_origin(hint) is Annotated:
        base, *extras = typing.get_args(hint)
        for extra in extras:
            if isinstance(extra, Arg):
                arg = extra
            elif isinstance(extra, str):
                arg = arg._replace(description=extra)
        hint = base
    optional = False
    args = typing.get_args(hint)
    if type(None) in args:
        optional = True
        rest = [a for a in args if a is not type(None)]
        hint = rest[0] if len(rest) == 1 else hint
    if typing.get_origin(hint) is list:
        (item,) = typing.get_args(hint) or (str,)
        hint = tuple[item, ...]  # type: ignore[valid-type]
    if optional:
        hint = hint | None
    return Annotated[hint, arg]


class FunctionTool(TypedTool[Any]):
    """A tool made by `@tool` from a function; `read_only` tools still ask like any other
    custom tool unless allowed (permission rules name them by `name`)."""

    def __init__(
        self, function: Callable[..., Any], name: str, description: str, arguments: type[Any]
    ) -> None:
        self.function = function
        self.name = name
        self.description = description
        self.read_only = False
        self.arguments = arguments

    async def call(self, args: Any, ctx: ToolContext) -> ToolResult:
        values = {
            key: list(value) if isinstance(value, tuple) else value
            for key, value in vars(args).items()
        }
        try:
            if inspect.iscoroutinefunction(self.function):
                result = await self.function(**values)
            else:
                result = await asyncio.to_thread(self.function, **values)
        except Exception as exc:  # the program's own code: the model is told, the turn goes on
            return error_result(f"{self.name} failed: {type(exc).__name__}: {exc}")
        content = result if isinstance(result, str) else json.dumps(result, default=str)
        return ToolResult(content=content, summary=f"{self.name} done")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The decorated function stays callable as it was."""
        return self.function(*args, **kwargs)


def _arguments_class(function: Callable[..., Any], tool_name: str) -> type[Any]:
    hints = typing.get_type_hints(function, include_extras=True)
    annotations: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    for pname, param in inspect.signature(function).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"@tool {tool_name!r}: *args and **kwargs cannot be tool arguments")
        if pname not in hints:
            raise TypeError(f"@tool {tool_name!r}: parameter {pname!r} needs a type hint")
        annotations[pname] = _field_hint(pname, hints[pname])
        if param.default is not param.empty:
            defaults[pname] = param.default
    namespace: dict[str, Any] = {"__annotations__": annotations, **defaults}
    cls: type[Any] = tool_arguments(type(f"{tool_name}Args", (), namespace))
    schema_of(cls)  # a type the schema cannot say fails here, at decoration, not mid-turn
    return cls


# req: SD5
def tool(
    function: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
) -> Any:
    """Make a custom tool of a typed function: `@tool` or `@tool(name=..., description=...)`."""

    def make(fn: Callable[..., Any]) -> FunctionTool:
        tool_name = name or fn.__name__
        if not tool_name or not set(tool_name) <= _NAME_OK:
            raise ValueError(f"@tool name {tool_name!r} may use only letters, digits, _ and -")
        text = description or inspect.getdoc(fn) or ""
        text = text.split("\n\n", 1)[0].strip() or tool_name
        return FunctionTool(fn, tool_name, text, _arguments_class(fn, tool_name))

    return make(function) if function is not None else make


def check_custom_tools(value: object) -> tuple[FunctionTool, ...]:
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"option 'custom_tools' must be a list, not {type(value).__name__}")
    out: list[FunctionTool] = []
    for item in value:
        if isinstance(item, FunctionTool):
            out.append(item)
        elif callable(item):
            raise TypeError(
                f"option 'custom_tools' holds {getattr(item, '__name__', item)!r}: decorate it with @tool"
            )
        else:
            raise TypeError(
                f"option 'custom_tools' must hold @tool functions, not {type(item).__name__}"
            )
    names = [t.name for t in out]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise ValueError(f"option 'custom_tools' names {duplicate!r} twice")
    return tuple(out)
