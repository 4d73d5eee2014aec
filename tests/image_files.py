"""Image files for tests, made with Pillow on the spot (no binary fixtures), and the image parts
of recorded requests decoded back."""

from __future__ import annotations

import base64
import io
import struct
import zlib
from pathlib import Path
from typing import Any

from PIL import Image


def png(path: Path, size: tuple[int, int], color: tuple[int, int, int] = (200, 30, 30)) -> Path:
    Image.new("RGB", size, color).save(path, format="PNG")
    return path


def noisy_png(path: Path, size: tuple[int, int]) -> Path:
    """A PNG that does not compress to nothing (a photograph's worth of detail)."""
    import random

    rng = random.Random(7)
    small = Image.frombytes(
        "RGB", (size[0] // 8, size[1] // 8), rng.randbytes(size[0] // 8 * (size[1] // 8) * 3)
    )
    small.resize(size, Image.Resampling.BILINEAR).save(path, format="PNG")
    return path


def jpeg_rotated(path: Path) -> Path:
    """A 300×200 JPEG whose EXIF says "rotate 90° clockwise to view" (orientation 6)."""
    image = Image.new("RGB", (300, 200), (10, 120, 250))
    exif = Image.Exif()
    exif[0x0112] = 6
    image.save(path, format="JPEG", exif=exif.tobytes())
    return path


def gif(path: Path, colors: list[tuple[int, int, int]], size: tuple[int, int] = (40, 30)) -> Path:
    frames = [Image.new("RGB", size, c) for c in colors]
    frames[0].save(path, format="GIF", save_all=True, append_images=frames[1:], duration=50)
    return path


def webp(path: Path, size: tuple[int, int]) -> Path:
    Image.new("RGB", size, (0, 160, 60)).save(path, format="WEBP")
    return path


def png_claiming(path: Path, size: tuple[int, int]) -> Path:
    """A tiny valid PNG whose header claims `size` (a decompression bomb, without the RAM)."""
    raw = io.BytesIO()
    Image.new("L", (1, 1)).save(raw, format="PNG")
    data = bytearray(raw.getvalue())
    ihdr = struct.pack(">II", *size) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr) & 0xFFFFFFFF)
    path.write_bytes(bytes(data))
    return path


def image_urls(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]


def all_image_urls(body: dict[str, Any]) -> list[str]:
    return [url for m in body["messages"] for url in image_urls(m)]


def decode(url: str) -> tuple[str, bytes, Image.Image]:
    head, _, data = url.partition(";base64,")
    raw = base64.b64decode(data)
    return head.removeprefix("data:"), raw, Image.open(io.BytesIO(raw))


def texts_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or [] if p.get("type") == "text")


def screenshot_png(path: Path, size: tuple[int, int]) -> Path:
    """A screenshot-like PNG: flat panels, bars of "text", a few colours."""
    from PIL import ImageDraw

    image = Image.new("RGB", size, (250, 250, 250))
    draw = ImageDraw.Draw(image)
    width, height = size
    draw.rectangle((0, 0, width // 5, height), fill=(40, 44, 52))
    for row in range(40, height - 20, 28):
        for col in range(width // 5 + 30, width - 60, 140):
            draw.rectangle((col, row, col + 90 + (row * col) % 40, row + 12), fill=(60, 60, 60))
    draw.rectangle((width // 2, height // 3, width - 80, height // 2), fill=(220, 50, 50))
    image.save(path, format="PNG")
    return path
