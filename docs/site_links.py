"""An MkDocs hook: the repository's root documents inside the docs site.

`ARCHITECTURE.md` and `CONTRIBUTING.md` stay at the root, where contributors read them on
GitHub; a page includes one whole with a line `--8<-- "ARCHITECTURE.md"`. Their links are
written from the root (`docs/layout.md`) and the pages link to them as `../ARCHITECTURE.md`:
both are rewritten to the site's pages, so the same Markdown works in both places.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

# The root file -> the page of the site that includes it.
INCLUDED = {"ARCHITECTURE.md": "architecture.md#the-map", "CONTRIBUTING.md": "contributing.md"}

_INCLUDE = re.compile(r'^--8<-- "([^"]+)"$', re.M)
_TO_ROOT = re.compile(r"\]\(\.\./(" + "|".join(re.escape(n) for n in INCLUDED) + r")\)")


def _included(name: str, root: Path) -> str:
    if name not in INCLUDED:
        raise ValueError(f"--8<-- {name!r}: only {', '.join(INCLUDED)} are included")
    text = (root / name).read_text(encoding="utf-8")
    return text.replace("](docs/", "](")


def on_page_markdown(markdown: str, config: Any, **_: Any) -> str:
    """Each page's Markdown, before MkDocs converts it and checks its links."""
    root = Path(config["config_file_path"]).parent
    markdown = _INCLUDE.sub(lambda m: _included(m.group(1), root), markdown)
    return _TO_ROOT.sub(lambda m: f"]({INCLUDED[m.group(1)]})", markdown)
