"""Close-match test for two normalised memory texts, bounded in time whatever their sizes (SP8).

`difflib.SequenceMatcher(autojunk=False).ratio()` is quadratic: two 35 KB memories of short
lines kept a write's duplicate check busy for minutes. So the exact ratio is only computed for
texts of at most `EXACT_MAX_CHARS`, and only after its cheap upper bounds (`real_quick_ratio`,
the length ratio, and `quick_ratio`, a character count) leave it a chance. Longer texts are
compared by the Dice coefficient of their sets of `SHINGLE_WORDS`-word shingles — linear in the
texts, computed once per text — which is stricter than the exact ratio on scattered edits but
calls a copy with a few changed lines a match and two texts that merely share a vocabulary not.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

CLOSE_MATCH_RATIO = 0.85
MIN_COMPARED_CHARS = 12  # shorter texts ("Tabs.") match too easily to be called duplicates
# The exact ratio of two texts of this size costs a few tens of milliseconds at worst.
EXACT_MAX_CHARS = 1_000
SHINGLE_WORDS = 3
# A pair of long texts is first compared by the `SKETCH_SIZE` smallest hashes of each (bottom-k
# MinHash, a few microseconds), and their whole shingle sets only when that estimate is within
# `SKETCH_MARGIN` of a match: six standard errors of the estimate, so no match is lost to it.
SKETCH_SIZE = 128
SKETCH_MARGIN = 0.2


# req: SP8
@dataclass(slots=True, eq=False)
class Compared:
    """A normalised text with its shingles, worked out once however many texts it meets."""

    text: str
    _shingles: frozenset[int] | None = field(default=None, repr=False)
    _sketch: frozenset[int] | None = field(default=None, repr=False)

    def shingles(self) -> frozenset[int]:
        """Hashes of the text's runs of `SHINGLE_WORDS` words: ints, so that the intersection of
        two sets never compares strings (a collision of 64-bit hashes is left to chance)."""
        if self._shingles is None:
            words = self.text.split()
            runs = zip(*(words[i:] for i in range(SHINGLE_WORDS)), strict=False)
            self._shingles = frozenset(map(hash, runs)) or frozenset([hash(tuple(words))])
        return self._shingles

    def sketch(self) -> frozenset[int]:
        if self._sketch is None:
            self._sketch = frozenset(heapq.nsmallest(SKETCH_SIZE, self.shingles()))
        return self._sketch


# req: SP8
def close_ratio(a: Compared, b: Compared) -> float | None:
    """How closely `a` and `b` match (1.0 = equal), or None below `CLOSE_MATCH_RATIO`."""
    if a.text == b.text:
        return 1.0
    short, long = sorted((len(a.text), len(b.text)))
    if short < MIN_COMPARED_CHARS or 2.0 * short / (short + long) < CLOSE_MATCH_RATIO:
        return None
    ratio = _exact_ratio(a.text, b.text) if long <= EXACT_MAX_CHARS else _shingle_ratio(a, b)
    return ratio if ratio is not None and ratio >= CLOSE_MATCH_RATIO else None


def _exact_ratio(a: str, b: str) -> float | None:
    import difflib  # only when something is compared: not on every start

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < CLOSE_MATCH_RATIO or matcher.quick_ratio() < CLOSE_MATCH_RATIO:
        return None
    return matcher.ratio()


def _shingle_ratio(a: Compared, b: Compared) -> float:
    sa, sb = a.shingles(), b.shingles()
    if len(sa) > len(sb):
        sa, sb = sb, sa
    if 2.0 * len(sa) / (len(sa) + len(sb)) < CLOSE_MATCH_RATIO:
        return 0.0
    if _sketch_dice(a.sketch(), b.sketch()) < CLOSE_MATCH_RATIO - SKETCH_MARGIN:
        return 0.0
    # Equal shingle sets are not equal texts: "repeats" is kept for those.
    return min(2.0 * len(sa & sb) / (len(sa) + len(sb)), 0.99)


def _sketch_dice(a: frozenset[int], b: frozenset[int]) -> float:
    """The Dice coefficient estimated from two bottom-k sketches: the share of the union's k
    smallest hashes that both sets hold, turned from Jaccard into Dice."""
    union = heapq.nsmallest(SKETCH_SIZE, a | b)
    if not union:
        return 1.0
    jaccard = sum(1 for h in union if h in a and h in b) / len(union)
    return 2.0 * jaccard / (1.0 + jaccard)
