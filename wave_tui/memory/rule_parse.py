"""Rule files' content: frontmatter keys, `paths` values and their braces (R6, R9, R10, MX4).

Frontmatter keys: `paths` (list, or a comma-separated string; `{a,b}` braces expand), `priority`
(int, default 0), `name`, `description`. A file without frontmatter or without `paths` is
unconditional (X4). A file is reported and does not load when its YAML does not parse, when
`paths`/`priority` has an unusable value, or when it uses a scope key of another tool (`globs`,
`applyTo`, `alwaysApply`, …) — loading such a rule everywhere would silently ignore its intended
scope. Other unknown keys are reported, and the rule still loads.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

from wave_tui.files.globbing import (
    BracesTooDeep,
    TooManyAlternatives,
    expand_comma_braces,
    split_top_level_commas,
)
from wave_tui.memory.decoding import clean_text, decode_memory_bytes
from wave_tui.memory.frontmatter import split_frontmatter, value_text
from wave_tui.memory.html_comments import strip_html_comments

KNOWN_KEYS = frozenset({"paths", "priority", "name", "description"})
# Scope keys of other agents: a rule using one meant to be conditional, so it must not load blind.
SCOPE_KEY_HINTS: dict[str, str] = {
    "globs": "paths",
    "glob": "paths",
    "applyto": "paths",
    "path": "paths",
    "files": "paths",
    "include": "paths",
    "patterns": "paths",
    "pattern": "paths",
    "match": "paths",
    "alwaysapply": "omit 'paths' for an always-on rule",
}
MAX_BRACE_EXPANSIONS = 256
_READ_BYTES = 64 * 1024
# Reads past a rule file's stat'ed size before it is taken as it is.
_GROWTH_READS = 16
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)


# req: R9
def expand_braces(pattern: str) -> list[str]:
    """`{src,lib}/**/*.ts` -> `src/**/*.ts`, `lib/**/*.ts` (nested braces too, R9).

    Braces without a top-level comma, escaped ones, those in a `[...]` class and unbalanced ones
    stay literal. Past MAX_BRACE_EXPANSIONS the first ones count; nesting deeper than the brace
    depth limit raises BracesTooDeep.
    """
    try:
        return expand_comma_braces(pattern, limit=MAX_BRACE_EXPANSIONS)
    except TooManyAlternatives as exc:
        return list(exc.first)


# req: R6
# req: MX4
def parse_paths_value(value: Any) -> tuple[list[str], str | None]:
    """Patterns from a `paths` value, or an error. Strings split on commas outside braces."""
    if value is None:
        return [], None
    if isinstance(value, str) and "," not in value and "{" not in value and "\n" not in value:
        item = value.strip()  # one pattern, nothing to split or expand: the usual value
        return ([item[2:] if item.startswith("./") else item] if item else []), None
    if isinstance(value, str):
        raw = [text for part in split_top_level_commas(value) if (text := part.strip())]
    elif isinstance(value, list):
        raw = []
        for item in value:
            if not isinstance(item, (str, int, float)):
                return [], "'paths' entries must be strings"
            text = str(item).strip()
            if text:
                raw.append(text)
    else:
        return [], "'paths' must be a list or a comma-separated string"
    patterns: list[str] = []
    for item in raw:
        if "\n" in item:
            # A `|` block without commas folds into one pattern holding a newline: no path has one.
            shown = item.replace("\n", "\\n")
            return [], (
                f"'paths' pattern '{shown}' spans lines and can never match "
                "(separate patterns with commas or write a YAML list)"
            )
        cleaned = item[2:] if item.startswith("./") else item
        try:
            alternatives = expand_braces(cleaned)
        except BracesTooDeep as exc:
            return [], f"'paths' pattern '{item}' {exc}"
        for expanded in alternatives:
            if expanded not in patterns:
                patterns.append(expanded)
    return patterns, None


# -- parsing of one rule file ---------------------------------------------------------------------


class ParsedRuleFile(NamedTuple):
    """What a rule file's content says, independent of where it was found (a tuple: one is made
    for every rule file of a session)."""

    body: str
    patterns: tuple[str, ...]
    priority: int
    name: str
    description: str
    problems: tuple[str, ...]  # reported; the rule still loads
    fatal: str | None  # reported; the rule does not load


def _unknown_key_problem(key: str) -> tuple[str, bool]:
    hint = SCOPE_KEY_HINTS.get(key.lower())
    if hint is None:
        return f"unknown frontmatter key '{key}' (ignored)", False
    if hint.startswith("omit"):
        return f"unknown frontmatter key '{key}' ({hint})", True
    return f"unknown frontmatter key '{key}' (did you mean '{hint}'?)", True


# req: R10
def parse_rule_text(text: str) -> ParsedRuleFile:
    data, body, _, error = split_frontmatter(text)
    body = strip_html_comments(body)  # notes for people, not for the model (MR6)
    if error is not None or not data:  # X4: no frontmatter, no keys: unconditional
        return ParsedRuleFile(body, (), 0, "", "", (), error)
    problems: list[str] = []
    fatal: str | None = None
    for key in data:
        if key in KNOWN_KEYS:
            continue
        problem, is_fatal = _unknown_key_problem(key)
        if is_fatal and fatal is None:
            fatal = problem
        elif not is_fatal:
            problems.append(problem)
    patterns, paths_error = parse_paths_value(data.get("paths"))
    if paths_error and fatal is None:
        fatal = paths_error
    priority = 0
    raw_priority = data.get("priority")
    if raw_priority is not None:
        if isinstance(raw_priority, bool) or not isinstance(raw_priority, (int, str)):
            problems.append("'priority' must be an integer (using 0)")
        else:
            try:
                priority = int(raw_priority)
            except ValueError:
                problems.append("'priority' must be an integer (using 0)")
    return ParsedRuleFile(
        body=body,
        patterns=tuple(patterns),
        priority=priority,
        name=value_text(data["name"]) if "name" in data else "",
        description=value_text(data["description"]) if "description" in data else "",
        problems=tuple(problems),
        fatal=fatal,
    )


def parse_rule_file(path: str | os.PathLike[str], size: int = 0) -> ParsedRuleFile:
    """The rule file's content, decoded as every memory source is (X11): a binary file does not
    load (the rule is inactive with the reason), undecodable bytes are reported.

    `size` is what a stat just said: the file is read in one `read` (plus the one that finds its
    end), not through a buffered file object (half the cost per file at 10k rules).
    """
    data = _read_all(path, size)
    text = clean_text(data)
    if text is not None:
        return parse_rule_text(text)
    decoded = decode_memory_bytes(data)
    if decoded.text is None:
        return ParsedRuleFile("", (), 0, "", "", (), decoded.problem)
    parsed = parse_rule_text(decoded.text)
    if decoded.problem is None:
        return parsed
    return parsed._replace(problems=(*parsed.problems, decoded.problem))


# req: HR13
def _read_all(path: str | os.PathLike[str], size: int) -> bytes:
    """The file as it is now: past its stat'ed size, a growing file is followed for at most
    _GROWTH_READS more reads (a file another process keeps appending to never holds up the
    request)."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        data = os.read(fd, size + 1)
        for _ in range(_GROWTH_READS):  # until the read that finds the end: it may grow
            more = os.read(fd, _READ_BYTES)
            if not more:
                break
            data += more
    finally:
        os.close(fd)
    return data
