"""An always-loaded memory that is too big to carry in every request: over 40,000 characters or
10% of the context window, it gets one warning naming the file and its size (MR6)."""

from __future__ import annotations

from collections.abc import Iterable

OVERSIZE_CHARS = 40_000
OVERSIZE_WINDOW_SHARE = 0.10
CHARS_PER_TOKEN = 4  # the estimate every other size check of memory uses
MEASURED_FROM = 1_000  # smaller parts can never cross either limit in a usable window


# req: MR6
def oversize_warnings(
    sizes: Iterable[tuple[str, int]], window_tokens: int | None
) -> list[tuple[str, str]]:
    """(name, warning line) per always-loaded memory (`name`, characters) over either limit."""
    warnings: list[tuple[str, str]] = []
    for name, chars in sizes:
        tokens = chars // CHARS_PER_TOKEN
        share = tokens / window_tokens if window_tokens else 0.0
        if chars <= OVERSIZE_CHARS and share <= OVERSIZE_WINDOW_SHARE:
            continue
        of_window = f", {share:.0%} of the window" if window_tokens else ""
        line = (
            f"{name} is {chars:,} characters (~{tokens:,} tokens{of_window}) and loads with "
            "every request; trim it or move parts into path-scoped rules"
        )
        warnings.append((name, line))
    return warnings
