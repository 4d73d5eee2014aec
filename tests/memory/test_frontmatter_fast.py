"""The frontmatter fast path gives exactly what `yaml.safe_load` gives, or steps aside (R6, X4)."""

from __future__ import annotations

import itertools
import random

import pytest
import yaml

from wave_tui.memory import frontmatter
from wave_tui.memory.frontmatter import parse_frontmatter
from wave_tui.memory.frontmatter_fast import parse_simple_yaml

# Documents the fast path must take (what rule, memory, command and agent files hold).
SIMPLE = [
    "paths: src/**/*.ts\n",
    "paths: pkg1/**/*.ts\npriority: 5\n",
    "name: api-rules\ndescription: How the API layer is written.\n",
    "paths:\n  - src/**/*.ts\n  - test/**/*.ts\n",
    "paths:\n- src/a.py\n- src/b.py\npriority: 2\n",
    "paths:\n    - a\n\n    - b\nname: x\n",
    "paths: src/*.{ts,tsx}, lib/[ab].js\n",
    'paths: "src/**/*.ts"\n',
    "paths: '**/*.md'\n",
    "paths:\n  - \"**/*.ts\"\n  - '*.md'\n",
    "description: it's fine, really\n",
    "description: all 100% of the time & more! (see @docs) `x` |y| >z\n",
    "url: http://example.com:8080/a?b=c\n",
    "name: Yes!\ntitle: Nope\nk: nULL\nj: NaN\n",
    "enabled: true\nother: False\nthird: yes\nfourth: OFF\nnothing: ~\nnone: null\n",
    "priority: 0\nbig: 12345678901234567890\n",
    "empty:\nnext: value\n",
    "trailing: value   \n",
    "spaced:    value\n",
    "name: x\nname: y\n",
    "under_score: a\ndash-key: b\nCamelKey: c\n",
    "name: café ünïcode 日本語 😀\n",
    "paths: a\r\npriority: 3\r\n",
    "type: user\nname: note\ndescription: a fact about the user\n",
    "allowed-tools: Bash(git *), Read\nmodel: fast\nargument-hint: the file [optional]\n",
    "paths: [a, b]\n",
    'paths: ["src/**/*.ts", "lib/*.py"]\n',
    "paths: ['**/*.md',  docs/x.md ]\n",
    "paths: []\n",
    "flags: [true, 0, 12, ~, null, Off]\n",
]

# Documents where YAML reads the text differently from a plain string, or fails: the fast
# path must step aside for each.
NOT_SIMPLE = [
    "paths: **/*.ts\n",
    "paths: *alias\n",
    "paths: &anchor x\n",
    "paths: !tag x\n",
    "paths: {a: b}\n",
    "paths: [a, [b]]\n",
    "paths: [a, {b: c}]\n",
    'paths: ["a, b"]\n',
    "paths: [a, ]\n",
    "paths: [*a]\n",
    "paths: [a: b]\n",
    "paths: [a #b]\n",
    "paths: [a\n",
    "paths: [a, b] x\n",
    "paths: [a'b]\n",
    "name: |\n  block\n",
    "name: >\n  folded\n",
    "name: x # comment\n",
    "# comment\nname: x\n",
    "name: a: b\n",
    "name: ends:\n",
    "ratio: 1.5\n",
    "when: 2024-01-01\n",
    "octal: 017\n",
    "sexagesimal: 1:20\n",
    "signed: -1\n",
    "plus: +1\n",
    "under: 1_000\n",
    "hex: 0x1F\n",
    "inf: .inf\n",
    "merge: <<\n",
    "value: =\n",
    "dash: -x\n",
    "question: ?x\n",
    "colon: :x\n",
    "percent: %x\n",
    "at: @x\n",
    "tick: `x`\n",
    'escaped: "a\\tb"\n',
    'inner: "a"b"\n',
    "doubled: 'it''s'\n",
    "tab:\tvalue\n",
    "  indented: x\n",
    "name: x\n  continued\n",
    "name x\n",
    "key:value\n",
    "yes: x\n",
    "null: x\n",
    "paths:\n  - a\n    - b\n",
    "paths:\n  - a\n - b\n",
    "paths:\n  -\n",
    "paths:\n  - - a\n",
    "paths:\n  - a: b\n",
    "name: x\n  - a\n",
    "- a\n- b\n",
    "just text\n",
    "name: a\x85b\n",
    "name: a\u2028b\n",
    "name: a\x0bb\n",
    "name: \ufeffx\n",
    "name: non\u00a0breaking\n",  # YAML reads it as text; this path just steps aside
    "name: bare\rcarriage\n",
    "...\n",
]


@pytest.mark.req("R6")
@pytest.mark.parametrize("raw", SIMPLE)
def test_r6_simple_frontmatter_takes_the_fast_path_with_the_yaml_result(raw: str) -> None:
    fast = parse_simple_yaml(raw)
    assert fast is not None
    assert fast == yaml.safe_load(raw)
    assert [type(v) for v in fast.values()] == [type(v) for v in yaml.safe_load(raw).values()]


@pytest.mark.req("R6")
@pytest.mark.parametrize("raw", NOT_SIMPLE)
def test_r6_anything_else_goes_to_the_yaml_parser(raw: str) -> None:
    assert parse_simple_yaml(raw) is None


# Pieces from which many documents are built; each one is checked against yaml.safe_load.
_KEYS = ["paths", "name", "priority", "x-y", "_k", "True", "on", "Null", "k1"]
_VALUES = [
    "a",
    "src/**/*.ts",
    "1",
    "0",
    "01",
    "10",
    "-1",
    "1.0",
    "1e3",
    "true",
    "True",
    "no",
    "Off",
    "null",
    "~",
    "",
    "a b",
    "a  b ",
    "a:b",
    "a: b",
    "a #b",
    "a#b",
    "*a",
    "a*",
    "&a",
    "!a",
    "{a}",
    "a{b}",
    "[a]",
    "a[b]",
    "a,b",
    "'q'",
    '"q"',
    "'q",
    '"q',
    "q'",
    "'a'b'",
    "x:",
    "http://h:1/p",
    "é",
    "%a",
    "a%",
    "@a",
    "a@",
    "`a`",
    "|",
    ">",
    "<<",
    "=",
    ".5",
    "+5",
    "0x10",
    "1_0",
    "2020-01-01",
    "12:30",
    "?",
    "?a",
    "-",
    "-a",
    "- a",
    "a -b",
    "\\",
    "'a\\b'",
    '"a\\b"',
    "'",
    '"',
    "''",
    '""',
]


def _documents() -> list[str]:
    docs = [f"{k}: {v}\n" for k, v in itertools.product(_KEYS, _VALUES)]
    docs += [
        f"{k}:\n  - {v}\n  - {w}\n"
        for k, v, w in itertools.product(_KEYS[:3], _VALUES, _VALUES[:12])
    ]
    docs += [  # one-line flow lists of every value, alone and in pairs, spaced or not
        f"paths: [{v}{sep}{w}]\n"
        for v, w in itertools.product(_VALUES, _VALUES[:20])
        for sep in (", ", ",", " ,  ")
    ]
    docs += [f"paths: [{v}]\n" for v in _VALUES]
    rng = random.Random(20)
    for _ in range(2000):
        lines: list[str] = []
        for _ in range(rng.randint(1, 5)):
            key = rng.choice(_KEYS)
            if rng.random() < 0.3:
                indent = rng.choice(["", "  ", "    "])
                lines.append(f"{key}:")
                lines += [f"{indent}- {rng.choice(_VALUES)}" for _ in range(rng.randint(0, 3))]
            else:
                lines.append(f"{key}:{rng.choice([' ', '  ', ''])}{rng.choice(_VALUES)}")
            if rng.random() < 0.1:
                lines.append("")
        docs.append("\n".join(lines) + rng.choice(["\n", ""]))
    return docs


def _safe_load(raw: str) -> object:
    try:
        return yaml.safe_load(raw)
    except yaml.YAMLError:
        return "<yaml error>"


@pytest.mark.req("R6")
def test_r6_fast_path_equals_yaml_on_thousands_of_generated_documents() -> None:
    taken = 0
    for raw in _documents():
        fast = parse_simple_yaml(raw)
        if fast is None:
            continue
        taken += 1
        expected = _safe_load(raw)
        assert fast == expected, raw
        assert isinstance(expected, dict)
        assert [type(v) for v in fast.values()] == [type(v) for v in expected.values()], raw
    assert taken > 500  # the generator does reach the fast path


@pytest.mark.req("X4")
def test_x4_parse_frontmatter_reads_the_same_through_either_path() -> None:
    simple = parse_frontmatter("---\npaths:\n  - src/**/*.ts\npriority: 3\n---\nBody.\n")
    assert simple.data == {"paths": ["src/**/*.ts"], "priority": 3}
    assert simple.body == "Body.\n" and simple.error is None
    fallback = parse_frontmatter("---\npaths: [src/**/*.ts]\npriority: 3\n---\nBody.\n")
    assert fallback.data == simple.data and fallback.error is None
    broken = parse_frontmatter("---\nname: [unclosed\n---\nBody.\n")
    assert broken.has_frontmatter and broken.error is not None
    assert broken.error.startswith("invalid YAML")


# Openings where the fence search without line splitting must agree with the line-by-line one:
# fences with spaces, CRLF, a BOM, dashes inside values, other line breaks, no closing line.
_FENCE_DOCS = [
    "---\npaths: a\n---\nBody.\n",
    "---\n---\nBody.\n",
    "---\n---",
    "---\npaths: a\n---",
    "---\npaths: a\n--- \nBody.\n",
    "---\npaths: a\n ---\nB.\n---\nC.\n",
    "---\npaths: a---b\n---\nBody.\n",
    "---\nname: x\n----\n---\nBody.\n",
    "---\r\npaths: a\r\n---\r\nBody.\r\n",
    "---\npaths: a\r\n---\nBody.\n",
    "---\npaths: a\x85---\nBody.\n",
    "---\npaths: a\u2028b\n---\nBody.\n",
    "---\npaths: a\x0b---\n---\nBody.\n",
    "\ufeff---\npaths: a\n---\nBody.\n",
    "--- \npaths: a\n---\nBody.\n",
    "  ---\npaths: a\n---\nBody.\n",
    "----\npaths: a\n---\nBody.\n",
    "-\n",
    "",
    "Body only.\n",
    "\npaths: a\n---\n",
    "---\nno closing fence\n",
    "---\n\n---\n\n---\n",
]


def _fence_documents(count: int = 5000, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    pieces = ["---", " ---", "--- ", "----", "a: b", "a---", "", "x", "\ufeff", " "]
    breaks = ["\n", "\n", "\n", "\r\n", "\r", "\x85", "\u2028"]
    docs = []
    for _ in range(count):
        lines = [rng.choice(pieces) + rng.choice(breaks) for _ in range(rng.randint(0, 6))]
        if rng.random() < 0.7:  # most open and close as the fast path expects, somewhere
            lines.insert(0, "---\n")
            lines.insert(rng.randint(1, len(lines)), "---\n")
        docs.append("".join(lines))
    return _FENCE_DOCS + docs


def _takes_the_fast_path(text: str) -> bool:
    end = text.find("\n---\n", 3)
    return text.startswith("---\n") and end >= 0 and "---" not in text[4:end]


@pytest.mark.req("X4")
def test_x4_fence_found_without_splitting_lines_as_line_by_line() -> None:
    docs = _fence_documents()
    for text in docs:
        assert frontmatter._split(text) == frontmatter._split_lines(text), repr(text)
    assert sum(map(_takes_the_fast_path, docs)) > 1000  # the generator does reach it


TAG_SPELLINGS = [
    "paths: !!python/object/apply:os.system\n",
    'paths: !!python/object/apply:os.system ["ls"]\n',
    "paths:   !!python/name:os.system\n",
    "paths: !x\n",
    "paths: ! x\n",
    "paths: !!str x\n",
    "paths: !<tag:yaml.org,2002:str> x\n",
    "paths: &a !x y\n",
    "paths:\n  - !!python/object/apply:os.system\n",
    "paths:\n  - a\n  - !x b\n",
    "!!python/object/apply:os.system: x\n",
    "name: ok\n!x key: v\n",
]


@pytest.mark.req("R6")
@pytest.mark.parametrize("raw", TAG_SPELLINGS)
def test_a_tag_always_goes_to_the_yaml_parser(raw: str) -> None:
    """R6: whatever the tag's spelling, the fast path steps aside (safe_load decides)."""
    assert parse_simple_yaml(raw) is None
