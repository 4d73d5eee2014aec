"""A 4,000×3,000 PNG read and encoded for the model (IM1): a screenshot and a photograph's
worth of detail, each against the floor of decoding the same file alone.

    .venv/bin/python -m pytest -m bench -n 0 -s --benchmark-enable tests/bench/test_bench_images.py
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PIL import Image

from tests import image_files as img
from wave_tui.files.images import MAX_IMAGE_BYTES, MAX_LONG_SIDE, encode_image

pytestmark = [pytest.mark.bench, pytest.mark.req("IM1")]


def _decode_only(path: Path) -> None:
    with Image.open(path) as image:
        image.load()


def _best_of(fn: object, runs: int = 5) -> float:
    assert callable(fn)
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("kind", ["screenshot", "photo"])
def test_bench_read_and_encode_a_4000x3000_png(tmp_path: Path, benchmark, kind: str) -> None:
    path = tmp_path / f"{kind}.png"
    if kind == "screenshot":
        img.screenshot_png(path, (4000, 3000))
    else:
        img.noisy_png(path, (4000, 3000))
    encode_image(path)  # Pillow's plugins loaded once, as after the first image of a session
    encoded = benchmark(lambda: encode_image(path))
    assert max(encoded.width, encoded.height) <= MAX_LONG_SIDE
    assert encoded.byte_size <= MAX_IMAGE_BYTES
    floor = _best_of(lambda: _decode_only(path))
    whole = _best_of(lambda: encode_image(path))
    print(
        f"\n{kind} 4000×3000 PNG ({path.stat().st_size / 1e6:.1f} MB): read+encode {whole * 1000:.0f} ms "
        f"(floor, decoding alone: {floor * 1000:.0f} ms) -> {encoded.media_type} "
        f"{encoded.width}×{encoded.height}, {encoded.byte_size / 1e6:.2f} MB"
    )
