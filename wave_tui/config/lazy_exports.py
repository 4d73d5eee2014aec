"""Names a module exports but imports only when first used (a module `__getattr__`, PEP 562):
one home for the lazy-export pattern of the package's public faces."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


# req: CB2
def lazy_getattr(
    module: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """The `__getattr__` for `module`: `homes` maps each lazy name to the module defining it;
    a name once loaded is kept in `namespace` (the module's globals), so it is looked up once."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    return __getattr__
