"""Brace expansion and gitignore-style pattern compilation: the one home for both, shared by the
Glob and Grep tools and the `paths` of memory rules.

Two brace dialects, one scanner: ripgrep's `--glob` alternates every balanced `{...}` group
(`a{b}c` is `abc`), the shell alternates only a group with a top-level comma (`a{b}c` stays as it
is, which is what rule files written for other agents expect). In both, a brace escaped with `\\`
or inside a `[...]` class is literal, and so is an unmatched one. pathspec (gitignore semantics)
is imported on first use: a run that never matches a pattern does not load it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import islice
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

MAX_BRACE_DEPTH = 32

Groups = dict[int, int]  # index of each alternating `{` -> index of its matching `}`

# Where scanning has something to decide; everything between is plain text.
_GROUP_CHARS = re.compile(r"[\\\[{}]")
_COMMA_CHARS = re.compile(r"[\\\[{,]")


class BraceLimitError(ValueError):
    """A pattern's braces go past a limit; `str()` says which, e.g. "nests braces more than 32
    deep", to follow the pattern in a message."""

    def __init__(self, pattern: str, problem: str) -> None:
        super().__init__(problem)
        self.pattern = pattern


class BracesTooDeep(BraceLimitError):
    pass


class TooManyAlternatives(BraceLimitError):
    """`first` holds the first `limit` alternatives, for a caller that settles for them."""

    def __init__(self, pattern: str, limit: int, first: Sequence[str]) -> None:
        super().__init__(pattern, f"expands to more than {limit} alternatives")
        self.first = tuple(first)


# -- scanning -------------------------------------------------------------------------------------


def _class_end(pattern: str, start: int) -> int:
    """Index just past the `[...]` class opening at `start`, or -1 if it is not closed."""
    j = start + 1
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1  # a leading `]` is part of the class
    close = pattern.find("]", j)
    return -1 if close < 0 else close + 1


def _literal_end(pattern: str, i: int) -> int:
    """If an escape or a character class starts at `i`, the index after it; else -1."""
    if pattern[i] == "\\" and i + 1 < len(pattern):
        return i + 2
    if pattern[i] == "[":
        return _class_end(pattern, i)
    return -1


def _balanced_groups(pattern: str) -> Groups:
    """Every balanced `{...}`; unmatched braces are left out (literal)."""
    pairs: Groups = {}
    if "{" not in pattern:
        return pairs
    stack: list[int] = []
    i = 0
    while (found := _GROUP_CHARS.search(pattern, i)) is not None:
        i = found.start()
        if (end := _literal_end(pattern, i)) > 0:
            i = end
            continue
        if pattern[i] == "{":
            stack.append(i)
        elif pattern[i] == "}" and stack:
            pairs[stack.pop()] = i
        i += 1
    return pairs


def _comma_ranges(pattern: str, groups: Groups, lo: int, hi: int) -> list[tuple[int, int]]:
    """The ranges between the commas of `pattern[lo:hi]` that lie outside every group."""
    ranges, start, i = [], lo, lo
    while (found := _COMMA_CHARS.search(pattern, i, hi)) is not None:
        i = found.start()
        if (end := _literal_end(pattern, i)) > 0:
            i = end
        elif i in groups:
            i = groups[i] + 1
        elif pattern[i] == ",":
            ranges.append((start, i))
            start = i = i + 1
        else:
            i += 1  # an unclosed `[` or a brace of no group: literal
    ranges.append((start, hi))
    return ranges


def split_top_level_commas(text: str) -> list[str]:
    """`a/*.{ts,js}, b` -> `a/*.{ts,js}`, ` b`: the commas inside groups, classes or escapes stay."""
    if "{" not in text and "[" not in text and "\\" not in text:
        return text.split(",")  # no group, class or escape: every comma splits
    groups = _balanced_groups(text)
    return [text[a:b] for a, b in _comma_ranges(text, groups, 0, len(text))]


# -- expansion ------------------------------------------------------------------------------------


def _expand(pattern: str, groups: Groups, limit: int) -> list[str]:
    """All alternatives in order, cut after `limit` + 1 (enough to tell that there are too many:
    the first n of a product need only the first n of each factor)."""
    if not groups:
        return [pattern]
    starts = sorted(groups)

    def expand(lo: int, hi: int, depth: int) -> list[str]:
        if depth > MAX_BRACE_DEPTH:
            raise BracesTooDeep(pattern, f"nests braces more than {MAX_BRACE_DEPTH} deep")
        k = bisect_left(starts, lo)
        if k == len(starts) or starts[k] >= hi:
            return [pattern[lo:hi]]  # no group inside: the common case, kept cheap
        results = [""]
        i = lo
        while i < hi:
            # Everything up to the next group is literal (escapes and classes hold no group).
            k = bisect_left(starts, i)
            literal_end = min(starts[k], hi) if k < len(starts) else hi
            if literal_end > i:
                chunk, i = pattern[i:literal_end], literal_end
                results = [r + chunk for r in results]
                continue
            close = groups[i]
            ranges = _comma_ranges(pattern, groups, i + 1, close)
            alts = (alt for a, b in ranges for alt in expand(a, b, depth + 1))
            parts = list(islice(alts, limit + 1))
            results = list(islice((r + part for r in results for part in parts), limit + 1))
            i = close + 1
        return results

    expanded = expand(0, len(pattern), 0)
    if not pattern.startswith("!"):
        # `{!a,b}` means a file named "!a", not a negated pattern.
        expanded = ["\\" + alt if alt.startswith("!") else alt for alt in expanded]
    if len(expanded) > limit:
        raise TooManyAlternatives(pattern, limit, list(dict.fromkeys(expanded[:limit])))
    return list(dict.fromkeys(expanded))


def expand_braces(pattern: str, *, limit: int) -> list[str]:
    """`**/*.{ts,py}` -> `**/*.ts`, `**/*.py`: ripgrep's `--glob` alternation, for matchers
    (pathspec) that lack it; every balanced group alternates, nested ones too.

    Raises BracesTooDeep past MAX_BRACE_DEPTH, TooManyAlternatives past `limit`."""
    return _expand(pattern, _balanced_groups(pattern), limit)


def expand_comma_braces(pattern: str, *, limit: int) -> list[str]:
    """`{src,lib}/**/*.ts` -> `src/**/*.ts`, `lib/**/*.ts`: the shell's alternation, where a
    group without a top-level comma (`{single}`) is literal. Raises as `expand_braces`."""
    if "{" not in pattern:
        return [pattern]
    groups = _balanced_groups(pattern)
    alternating = {
        start: close
        for start, close in groups.items()
        if len(_comma_ranges(pattern, groups, start + 1, close)) > 1
    }
    return _expand(pattern, alternating, limit)


# -- compilation (gitignore semantics) ------------------------------------------------------------


@cache
def _gitignore_style() -> str:
    import pathspec

    # pathspec 1.x renamed the gitignore pattern style; pathspec < 1.0 only knows the older name.
    try:
        pathspec.util.lookup_pattern("gitignore")
    except KeyError:
        return "gitwildmatch"
    return "gitignore"


def gitignore_spec(lines: Iterable[str]) -> pathspec.PathSpec[pathspec.Pattern]:
    """Gitignore lines (as in an ignore file: comments, blanks and negations) as one matcher."""
    import pathspec

    return pathspec.PathSpec.from_lines(_gitignore_style(), lines)


@cache
def gitignore_pattern(pattern: str) -> pathspec.RegexPattern:
    """One gitignore pattern, compiled once per process."""
    import pathspec

    made = pathspec.util.lookup_pattern(_gitignore_style())(pattern)
    # Both gitignore styles build regex patterns; the check narrows the type for `.regex`.
    assert isinstance(made, pathspec.RegexPattern)
    return made


def ordered_spec(
    patterns: Sequence[pathspec.RegexPattern],
) -> pathspec.PathSpec[pathspec.RegexPattern]:
    """Compiled patterns evaluated in order, the last that applies deciding (gitignore negation)."""
    import pathspec

    return pathspec.PathSpec(patterns)
