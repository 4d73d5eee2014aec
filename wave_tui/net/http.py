"""httpx for the whole package, imported without its command-line client.

`import httpx` also imports httpx's own command-line client whenever click, rich and pygments are
installed — and beside textual and mcp they always are: ~0.16 G instructions, a tenth of a
`wave -p` run, for a tool wave never runs. A None entry in `sys.modules` makes that import fail
the way httpx expects when its CLI extras are absent (it then defines a stub `httpx.main`). So
every module that needs httpx or httpx-sse imports it from here (`from wave_tui.net.http import
httpx`), and the one module that imports an SDK built on httpx (`mcp.connection`) imports this
one first.

httpcore asks for `sniffio` each time it sets up a lock or an event (several times a request);
where sniffio is not installed, each ask was a failed import, a search of every `sys.path` entry.
One search here, and a None entry when it is absent, makes each later ask fail at once.
"""

from __future__ import annotations

import importlib.util
import sys

sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
    sys.modules["sniffio"] = None  # type: ignore[assignment]

import httpx  # noqa: E402  (after the entry above, on purpose)
from httpx_sse import EventSource  # noqa: E402  (it imports httpx)

__all__ = ["EventSource", "httpx"]
