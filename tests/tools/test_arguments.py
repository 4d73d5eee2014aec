"""Typed tool arguments: one dataclass gives the JSON schema and the checks (tools/arguments.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest

from wave_tui.tools.arguments import Arg, NoArgs, parse_args, schema_of, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError
from wave_tui.tools.bash import BashTool
from wave_tui.tools.grep import GrepTool
from wave_tui.tools.read import ReadTool

Colour = Literal["red", "green"]


def _upper(key: str, value: object) -> object:
    return value.upper() if isinstance(value, str) else value


@tool_arguments
class Point:
    x: Annotated[int, Arg("Across.")]
    y: int = 0


@tool_arguments
class Sample:
    name: Annotated[str, Arg("The name.")]
    count: Annotated[int | None, Arg("How many.", minimum=1)] = None
    size: Annotated[int, Arg(minimum=0)] = 10
    flag: Annotated[bool, Arg("A switch.", name="-f", schema_default=True)] = False
    ratio: Annotated[float | None, Arg("A ratio.", unit="percent")] = None
    colour: Annotated[Colour | None, Arg("Which colour.")] = None
    tags: Annotated[tuple[str, ...], Arg(max_items=2)] = ()
    points: Annotated[tuple[Point, ...], Arg(min_items=1, max_items=3)] = (Point(0),)
    code: Annotated[str, Arg("Upper-cased.", normalize=_upper, schema_required=True)] = ""


def _error(raw: dict[str, Any]) -> str:
    with pytest.raises(ToolError) as caught:
        parse_args(Sample, raw)
    return str(caught.value)


def test_the_schema_names_types_bounds_and_descriptions_in_a_fixed_key_order() -> None:
    assert json.dumps(schema_of(Sample)) == json.dumps(
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The name."},
                "count": {"type": "integer", "minimum": 1, "description": "How many."},
                "size": {"type": "integer", "minimum": 0},
                "-f": {"type": "boolean", "default": False, "description": "A switch."},
                "ratio": {"type": "number", "description": "A ratio."},
                "colour": {
                    "type": "string",
                    "enum": ["red", "green"],
                    "description": "Which colour.",
                },
                "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
                "points": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "type": "object",
                        "properties": {
                            "x": {"type": "integer", "description": "Across."},
                            "y": {"type": "integer"},
                        },
                        "required": ["x"],
                        "additionalProperties": False,
                    },
                },
                "code": {"type": "string", "description": "Upper-cased."},
            },
            "required": ["name", "code"],
            "additionalProperties": False,
        }
    )


def test_a_tool_without_arguments_has_an_empty_object_schema() -> None:
    assert schema_of(NoArgs) == {"type": "object", "properties": {}, "additionalProperties": False}
    assert parse_args(NoArgs, {"anything": 1}) == NoArgs()


def test_the_schema_is_built_once_per_class() -> None:
    assert schema_of(Sample) is schema_of(Sample)
    assert ReadTool().parameters is ReadTool().parameters


def test_an_arguments_class_becomes_a_frozen_dataclass_on_first_use() -> None:
    @tool_arguments
    class Fresh:
        a: int
        b: str = "x"

    assert not dataclasses.is_dataclass(Fresh)  # nothing built at definition (import) time
    assert schema_of(Fresh)["required"] == ["a"]
    assert not dataclasses.is_dataclass(Fresh)  # nor for the schema
    made = Fresh(1)
    assert dataclasses.is_dataclass(Fresh)
    assert made == Fresh(a=1, b="x")
    assert repr(made).endswith("Fresh(a=1, b='x')")
    assert hash(made) == hash(Fresh(1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.a = 2  # type: ignore[misc]


def test_defaults_fill_what_is_missing_or_null_and_unknown_keys_are_ignored() -> None:
    parsed = parse_args(Sample, {"name": "n", "count": None, "unknown": [1, 2]})
    assert parsed == Sample(name="n")
    assert (parsed.count, parsed.size, parsed.flag, parsed.tags, parsed.code) == (
        None,
        10,
        False,
        (),
        "",
    )


def test_the_wire_name_is_read_and_reported() -> None:
    assert parse_args(Sample, {"name": "n", "-f": True}).flag is True
    assert parse_args(Sample, {"name": "n", "flag": True}).flag is False
    assert _error({"name": "n", "-f": 3}) == "Parameter `-f` must be a boolean, got 3."


def test_a_missing_or_null_required_argument_is_named() -> None:
    assert _error({}) == "Missing required parameter `name`."
    assert _error({"name": None}) == "Missing required parameter `name`."


def test_a_string_of_the_wrong_type_is_refused() -> None:
    assert _error({"name": 5}) == "Parameter `name` must be a string, got int."
    assert _error({"name": ["a"]}) == "Parameter `name` must be a string, got list."


@pytest.mark.parametrize(("raw", "value"), [(3, 3), (3.0, 3), ("4", 4), (" 12 ", 12), ("-0", 0)])
def test_integers_accept_integral_floats_and_digit_strings(raw: object, value: int) -> None:
    assert parse_args(Sample, {"name": "n", "size": raw}).size == value


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (True, "Parameter `size` must be an integer, got a boolean."),
        (2.5, "Parameter `size` must be an integer, got 2.5."),
        ("ten", "Parameter `size` must be an integer, got 'ten'."),
        ("-3", "Parameter `size` must be at least 0, got -3."),
        (-1.0, "Parameter `size` must be at least 0, got -1."),
    ],
)
def test_integers_of_the_wrong_type_or_below_the_minimum_are_refused(
    raw: object, message: str
) -> None:
    assert _error({"name": "n", "size": raw}) == message


@pytest.mark.parametrize("raw", ["--5", "-", "5-", "²", "٣", "1_000", "+5", " - 5"])
def test_a_digit_string_that_is_no_integer_is_one_clear_error(raw: str) -> None:
    """Not a ValueError out of int(): the model is told which parameter, and what it sent."""
    assert _error({"name": "n", "size": raw}) == (
        f"Parameter `size` must be an integer, got {raw!r}."
    )


@pytest.mark.parametrize(("raw", "value"), [(True, True), ("true", True), ("FALSE", False)])
def test_booleans_accept_true_and_false_strings(raw: object, value: bool) -> None:
    assert parse_args(Sample, {"name": "n", "-f": raw}).flag is value


def test_a_boolean_of_the_wrong_type_is_refused() -> None:
    assert _error({"name": "n", "-f": "yes"}) == "Parameter `-f` must be a boolean, got 'yes'."


def test_numbers_take_ints_and_floats_but_no_strings_or_booleans() -> None:
    assert parse_args(Sample, {"name": "n", "ratio": 2}).ratio == 2.0
    assert parse_args(Sample, {"name": "n", "ratio": 0.5}).ratio == 0.5
    assert (
        _error({"name": "n", "ratio": "5"})
        == "Parameter `ratio` must be a number of percent, got '5'."
    )
    assert _error({"name": "n", "ratio": False}) == (
        "Parameter `ratio` must be a number of percent, got False."
    )


def test_a_choice_must_be_one_of_the_literal_values() -> None:
    assert parse_args(Sample, {"name": "n", "colour": "green"}).colour == "green"
    assert (
        _error({"name": "n", "colour": "blue"}) == "colour must be one of red, green; got 'blue'."
    )
    assert _error({"name": "n", "colour": 1}) == "Parameter `colour` must be a string, got int."


def test_a_list_becomes_a_tuple_of_checked_items_within_its_bounds() -> None:
    assert parse_args(Sample, {"name": "n", "tags": ["a", "b"]}).tags == ("a", "b")
    assert _error({"name": "n", "tags": "a"}) == "Parameter `tags` must be a list, got str."
    assert _error({"name": "n", "tags": ["a", 1]}) == "Parameter `tags` must be a string, got int."
    assert _error({"name": "n", "tags": ["a", "b", "c"]}) == (
        "Parameter `tags` must list 0 to 2 items, got 3."
    )


def test_a_list_of_objects_is_parsed_into_dataclasses() -> None:
    parsed = parse_args(Sample, {"name": "n", "points": [{"x": 1, "y": "2"}, {"x": 3.0}]})
    assert parsed.points == (Point(1, 2), Point(3))
    assert (
        _error({"name": "n", "points": []}) == "Parameter `points` must list 1 to 3 items, got 0."
    )
    assert _error({"name": "n", "points": [5]}) == "Parameter `points` must be an object, got int."
    assert _error({"name": "n", "points": [{"y": 1}]}) == "Missing required parameter `x`."


def test_normalize_sees_the_raw_value_before_the_type_check() -> None:
    assert parse_args(Sample, {"name": "n", "code": "ab"}).code == "AB"
    assert _error({"name": "n", "code": 7}) == "Parameter `code` must be a string, got int."


def test_the_first_wrong_field_in_declaration_order_is_reported() -> None:
    assert _error({"size": "x"}) == "Missing required parameter `name`."


# -- through real tools ---------------------------------------------------------------------------


async def test_read_takes_a_digit_string_offset(ctx: ToolContext) -> None:
    (ctx.workdir / "f.txt").write_text("a\nb\nc\n", encoding="utf-8")
    result = await ReadTool().run({"file_path": "f.txt", "offset": "2", "limit": 1.0}, ctx)
    assert not result.is_error, result.content
    assert result.content == "     2\tb\n\n(Showing lines 2-2 of 3. Use offset=3 to read further.)"


async def test_read_reports_a_mistyped_argument_to_the_model(ctx: ToolContext) -> None:
    result = await ReadTool().run({"file_path": "f.txt", "offset": 0}, ctx)
    assert result.is_error
    assert result.content == "Parameter `offset` must be at least 1, got 0."


async def test_grep_takes_an_empty_output_mode_as_the_default(ctx: ToolContext) -> None:
    (ctx.workdir / "a.py").write_text("TODO\n", encoding="utf-8")
    tool = GrepTool(use_ripgrep=False)
    result = await tool.run({"pattern": "TODO", "output_mode": ""}, ctx)
    assert not result.is_error, result.content
    assert result.content == str(Path(ctx.workdir / "a.py"))
    bad = await tool.run({"pattern": "TODO", "output_mode": "lines"}, ctx)
    assert bad.content == (
        "output_mode must be one of files_with_matches, content, count; got 'lines'."
    )


async def test_bash_names_the_unit_of_a_mistyped_timeout(ctx: ToolContext) -> None:
    result = await BashTool().run({"command": "true", "timeout": "soon"}, ctx)
    assert result.content == "Parameter `timeout` must be a number of seconds, got 'soon'."
    negative = await BashTool().run({"command": "true", "timeout": 0}, ctx)
    assert negative.content == "Parameter `timeout` must be a positive number of seconds."
