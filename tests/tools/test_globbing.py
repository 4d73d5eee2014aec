"""The one brace expander and gitignore compiler (files/globbing.py), both dialects."""

from __future__ import annotations

import random

import pytest

from wave_tui.files.globbing import (
    MAX_BRACE_DEPTH,
    BracesTooDeep,
    TooManyAlternatives,
    _balanced_groups,
    _comma_ranges,
    _expand,
    expand_comma_braces,
    gitignore_pattern,
    gitignore_spec,
    ordered_spec,
    split_top_level_commas,
)
from wave_tui.tools.base import ToolError
from wave_tui.tools.glob_tool import compile_glob, expand_braces


@pytest.mark.req("R9")
@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("{src,lib}/**/*.ts", ["src/**/*.ts", "lib/**/*.ts"]),
        ("a{b}c", ["a{b}c"]),  # no comma: literal, unlike ripgrep's alternation
        ("{a,{b}}", ["a", "{b}"]),
        ("{a{b,c}}", ["{ab}", "{ac}"]),
        ("\\{a,b}", ["\\{a,b}"]),  # escaped
        ("[{,]}x", ["[{,]}x"]),  # inside a class
        ("{a,{b}", ["{a,{b}"]),  # the outer group is unmatched, the inner has no comma
        ("{!a,b}", ["\\!a", "b"]),  # a file named "!a", not a negation
        ("!{a,b}", ["!a", "!b"]),  # the pattern itself negates
    ],
)
def test_r9_comma_braces(pattern: str, expected: list[str]) -> None:
    assert expand_comma_braces(pattern, limit=100) == expected


@pytest.mark.req("R9")
def test_r9_comma_braces_ignore_deep_groups_without_commas() -> None:
    deep = "{" * 100 + "a,b" + "}" * 100
    assert expand_comma_braces(deep, limit=10) == [
        "{" * 99 + "a" + "}" * 99,
        "{" * 99 + "b" + "}" * 99,
    ]


def test_too_many_alternatives_keeps_the_first_ones_in_order() -> None:
    with pytest.raises(TooManyAlternatives) as caught:
        expand_comma_braces("{a,b}{c,d}{e,f}", limit=3)
    assert caught.value.first == ("ace", "acf", "ade")
    assert str(caught.value) == "expands to more than 3 alternatives"
    assert caught.value.pattern == "{a,b}{c,d}{e,f}"


def test_too_deep_is_a_value_error_naming_the_limit() -> None:
    nested = "{a," * (MAX_BRACE_DEPTH + 1) + "b" + "}" * (MAX_BRACE_DEPTH + 1)
    with pytest.raises(BracesTooDeep, match=f"nests braces more than {MAX_BRACE_DEPTH} deep"):
        expand_comma_braces(nested, limit=1000)
    assert isinstance(BracesTooDeep("x", "y"), ValueError)


def test_glob_messages_name_the_pattern_and_the_limit() -> None:
    deep = "{" * 40 + "}" * 40
    with pytest.raises(ToolError) as caught:
        expand_braces(deep)
    assert str(caught.value) == f"Glob {deep!r} nests braces more than 32 deep."
    bomb = "{a,b}" * 11
    with pytest.raises(ToolError) as caught:
        compile_glob("*.py", bomb)
    assert str(caught.value) == f"Glob {bomb!r} expands to more than 1000 alternatives."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("src/**/*.{ts,tsx}, docs/*.md", ["src/**/*.{ts,tsx}", " docs/*.md"]),
        ("a[,]b,c", ["a[,]b", "c"]),
        ("a\\,b,c", ["a\\,b", "c"]),
        ("{a,b", ["{a", "b"]),  # an unmatched brace is literal, so its comma separates
        ("", [""]),
    ],
)
def test_split_top_level_commas(text: str, expected: list[str]) -> None:
    assert split_top_level_commas(text) == expected


def test_one_compiler_for_ignore_lines_and_single_patterns() -> None:
    spec = gitignore_spec(["# comment", "", "*.log", "!keep.log"])
    assert spec.match_file("a/b.log") and not spec.match_file("keep.log")
    pattern = gitignore_pattern("src/**/*.ts")
    assert pattern is gitignore_pattern("src/**/*.ts")  # compiled once
    assert pattern.regex is not None and pattern.regex.match("src/a/b.ts")
    ordered = ordered_spec([gitignore_pattern("src/**"), gitignore_pattern("!src/gen/**")])
    assert ordered.match_file("src/a.ts") and not ordered.match_file("src/gen/a.ts")


def _comma_expansion_by_the_scanner(pattern: str) -> list[str]:
    """`expand_comma_braces` through the scanner, whatever the pattern holds."""
    groups = _balanced_groups(pattern)
    alternating = {
        start: close
        for start, close in groups.items()
        if len(_comma_ranges(pattern, groups, start + 1, close)) > 1
    }
    return _expand(pattern, alternating, 256)


@pytest.mark.req("R9")
def test_r9_text_without_group_class_or_escape_splits_and_expands_as_the_scanner_does() -> None:
    """The shortcuts for text without `{`, `[` or `\\` give what the full scan gives."""
    rng = random.Random(5)
    alphabet = "ab,*/{}[]\\! "
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        scanned = _comma_ranges(text, _balanced_groups(text), 0, len(text))
        assert split_top_level_commas(text) == [text[a:b] for a, b in scanned], text
        assert expand_comma_braces(text, limit=256) == _comma_expansion_by_the_scanner(text), text
