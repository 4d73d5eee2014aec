"""The floor of one request's body: `json.dumps` as httpx encodes it and a POST over loopback.

Usage: python bench/floor_body.py BODY.json URL COUNT  (POSTs the body COUNT times on one
connection; `tests/bench/test_bench_request_rules.py` counts its instructions at two COUNTs).
"""

from __future__ import annotations

import json
import sys

import httpx


def main(body_file: str, url: str, count: int) -> None:
    with open(body_file, encoding="utf-8") as fh:
        body = json.load(fh)
    with httpx.Client() as client:
        for _ in range(count):
            data = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
            client.post(url, content=data.encode()).raise_for_status()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
