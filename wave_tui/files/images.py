"""Image files for the model: PNG, JPEG, GIF (first frame) and WebP decoded with Pillow, turned
upright (EXIF orientation), downscaled to a long side of at most 2,000 px and encoded to at
most 5 MiB (IM1).

Pillow is imported inside `encode_image`, the one function that decodes, so a session that never
meets an image never loads it. Blocking: call it in a thread from a coroutine. Every way a file
can be unusable (truncated, lying about its type, a decompression bomb, an animation of a
thousand frames) is one `ImageError` line for the model, never a crash or a hang.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.config.records import record

if TYPE_CHECKING:
    from PIL.Image import Image

IMAGE_SUFFIXES: dict[str, str] = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
MAX_LONG_SIDE = 2000  # px, what the model is sent
MAX_IMAGE_BYTES = 5 * 1024 * 1024  # image bytes before base64
MAX_FILE_BYTES = 64 * 1024 * 1024  # a file larger than this is not read at all
# Pillow's own bomb limit is ~89 MP (a warning) and twice that (an error); refuse at its warning
# threshold, before any pixel is decoded.
MAX_PIXELS = 89_478_485
MAX_FRAMES = 500  # an animation longer than this is refused, not walked
JPEG_QUALITIES = (85, 70, 55, 40)
PNG_SIZE_MARGIN = 1.25
EXIF_ORIENTATION = 0x0112


class ImageError(Exception):
    """An image that cannot be given to the model; the message is one line for it."""


@record
class EncodedImage:
    """An image as the model gets it: base64 data of `media_type`, its sent and original size."""

    name: str
    media_type: str
    data: str  # base64, no line breaks
    width: int
    height: int
    original_width: int
    original_height: int
    byte_size: int  # of the encoded image, before base64


def is_image_path(path: Path) -> bool:
    return path.suffix.lower() in IMAGE_SUFFIXES


def _describe(path: Path, exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{path.name} is not a readable image: {text}"


# req: IM1
def encode_image(path: Path, raw: bytes | None = None) -> EncodedImage:
    """Decode `path` (or its bytes `raw`), upright it, fit it to the limits, encode it."""
    from PIL import Image, ImageOps, UnidentifiedImageError  # only when an image is read

    if raw is None:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ImageError(
                f"{path.name} is {size / 1048576:.0f} MiB: images over "
                f"{MAX_FILE_BYTES // 1048576} MiB are not read."
            )
        raw = path.read_bytes()
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with Image.open(io.BytesIO(raw)) as opened:
            width, height = opened.size
            if width * height > MAX_PIXELS:
                raise ImageError(
                    f"{path.name} is {width}×{height} pixels: past the decompression-bomb limit "
                    f"of {MAX_PIXELS:,} pixels, so it is not decoded."
                )
            frames = getattr(opened, "n_frames", 1)
            if frames > MAX_FRAMES:
                raise ImageError(
                    f"{path.name} is an animation of {frames} frames: more than {MAX_FRAMES} "
                    "are not read."
                )
            opened.seek(0)  # a GIF or animated WebP: its first frame
            opened.load()
            # A copy only when the EXIF says to turn it (a copy of 12 MP is not free).
            turned = opened.getexif().get(EXIF_ORIENTATION, 1) not in (0, 1)
            upright = ImageOps.exif_transpose(opened) if turned else opened
            original = upright.size
            image = _fit(upright)
            media_type, data, sent = _encode(image, path, len(raw) / max(1, width * height))
    except ImageError:
        raise
    except UnidentifiedImageError as exc:
        raise ImageError(
            f"{path.name} is not the PNG, JPEG, GIF or WebP image its name says it is."
        ) from exc
    except Image.DecompressionBombError as exc:
        raise ImageError(
            f"{path.name} is past the decompression-bomb limit of {MAX_PIXELS:,} pixels: "
            "it is not decoded."
        ) from exc
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        # Truncated data, a PNG header over a JPEG body, a bad chunk: Pillow's several errors.
        raise ImageError(_describe(path, exc)) from exc
    return EncodedImage(
        name=path.name,
        media_type=media_type,
        data=base64.b64encode(data).decode("ascii"),
        width=sent[0],
        height=sent[1],
        original_width=original[0],
        original_height=original[1],
        byte_size=len(data),
    )


def _fit(image: Image) -> Image:
    from PIL import Image as PILImage

    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        has_alpha = "transparency" in image.info or image.mode in ("PA", "RGBa")
        image = image.convert("RGBA" if has_alpha else "RGB")
    width, height = image.size
    long_side = max(width, height)
    if long_side <= MAX_LONG_SIDE:
        return image
    scale = MAX_LONG_SIDE / long_side
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    factor = int(1 / scale)
    if factor >= 2:
        # A box-filter shrink by the whole factor first: a tenth of the filter's time.
        image = image.reduce(factor)
    if image.size != size:
        image = image.resize(size, PILImage.Resampling.LANCZOS)
    return image


def _encode(image: Image, path: Path, bytes_per_pixel: float) -> tuple[str, bytes, tuple[int, int]]:
    """PNG for a PNG, GIF or an image with alpha, JPEG for photographs; JPEG at falling quality
    (and then smaller) until it fits the byte limit. A PNG whose source already says it will
    not fit (its bytes per pixel, with a margin: a smaller image packs less well) goes straight
    to JPEG instead of being compressed for nothing."""
    suffix = path.suffix.lower()
    guess = bytes_per_pixel * image.size[0] * image.size[1] * PNG_SIZE_MARGIN
    lossless = suffix in (".png", ".gif", ".webp") or image.mode in ("RGBA", "LA")
    if lossless and (guess <= MAX_IMAGE_BYTES or image.mode in ("RGBA", "LA")):
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=1)
        if out.tell() <= MAX_IMAGE_BYTES:
            return "image/png", out.getvalue(), image.size
    flat = image.convert("RGB") if image.mode != "RGB" else image
    while True:
        for quality in JPEG_QUALITIES:
            out = io.BytesIO()
            flat.save(out, format="JPEG", quality=quality)
            if out.tell() <= MAX_IMAGE_BYTES:
                return "image/jpeg", out.getvalue(), flat.size
        width, height = flat.size
        flat = flat.resize((max(1, width * 3 // 4), max(1, height * 3 // 4)))
