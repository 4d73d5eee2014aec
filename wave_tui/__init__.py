"""wave-tui: a terminal coding agent whose heart is memory."""

import sys as _sys

__version__ = "0.1.0"

# `import httpx` also imports httpx's own command-line client whenever click, rich and pygments
# are installed — and beside textual and mcp they always are: ~0.16 G instructions, a tenth of
# a `wave -p` run, for a tool wave never runs. A None entry makes that import fail the way httpx
# expects when its CLI extras are absent (it then defines a stub `httpx.main`).
_sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
