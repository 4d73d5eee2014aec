"""A test browser for the conformance suite's authorization requests: fetch the URL and follow
its redirects, as a user's browser would once the (automatically approving) authorization server
sends it back to wave's loopback callback."""

from __future__ import annotations

import sys
import urllib.request


def main(url: str) -> int:
    with urllib.request.urlopen(url, timeout=30) as response:
        response.read()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
