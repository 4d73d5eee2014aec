"""The countable figure each adversarial family reports: "N of M handled"."""

from __future__ import annotations

from collections.abc import Iterable


def figure(family: str, outcomes: Iterable[tuple[str, str | None]]) -> tuple[int, int, str]:
    """(handled, total, report) from (case id, failure or None) pairs; prints the report."""
    results = list(outcomes)
    failures = [f"  {case}: {why}" for case, why in results if why is not None]
    handled = len(results) - len(failures)
    report = "\n".join([f"{family}: {handled} of {len(results)} handled", *failures])
    print(report)
    return handled, len(results), report
