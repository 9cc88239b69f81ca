#!/usr/bin/env python3
"""Writes the broken and hostile media corpus beside this script.

Every file is refused by every door media comes in through (modify_scene's background and
overlay, upload_asset in its three shapes); `tests/tests/media_corpus.rs` sends each one through
each door. Run again to regenerate (needs python3 and gst-launch-1.0); the output is
deterministic apart from the encoder's own bytes.
"""
import os
import struct
import subprocess
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(w: int, h: int, rows: bytes | None = None) -> bytes:
    """A valid RGB PNG of w×h (flat grey) unless `rows` replaces the image data."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    if rows is None:
        rows = b"".join(b"\0" + b"\x80" * (3 * w) for _ in range(h))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def gst(pipeline: list[str], out: str) -> bytes:
    subprocess.run(["gst-launch-1.0", "-q", "-e", *pipeline, "!", "filesink", f"location={out}"], check=True)
    with open(out, "rb") as f:
        return f.read()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        jpeg = gst(["videotestsrc", "num-buffers=1", "!", "video/x-raw,width=64,height=64", "!", "jpegenc"],
                   os.path.join(tmp, "a.jpg"))
        mp4 = gst(["videotestsrc", "pattern=smpte", "num-buffers=30", "!",
                   "video/x-raw,width=180,height=320,framerate=30/1", "!",
                   "x264enc", "speed-preset=ultrafast", "!", "h264parse", "!", "mp4mux"],
                  os.path.join(tmp, "a.mp4"))
    good = png(32, 32)
    html = b"<!doctype html><html><body><script>alert(document.cookie)</script></body></html>\n"
    # A declared 100000x100000 image with a handful of real bytes behind it.
    huge = png(100_000, 100_000, rows=b"\0" * 64)
    # 8000x8000 is within the side limit but 64 megapixels: a real, highly compressible image.
    side = 8000
    bomb_rows = zlib.compress((b"\0" + b"\0" * (3 * side)) * side, 9)
    bomb = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", bomb_rows) + chunk(b"IEND", b""))
    zero = png(0, 32, rows=b"")
    corpus = {
        "empty.png": b"",
        "truncated.png": good[: len(good) // 2],
        "truncated.jpg": jpeg[: len(jpeg) // 2],
        "truncated.mp4": mp4[: len(mp4) // 3],
        "zero_width.png": zero,
        "huge_declared.png": huge,
        "pixel_bomb.png": bomb,
        "png_named.mp4": good,
        "html_named.png": html,
        "mp4_named.png": mp4,
        "polyglot_png_html.png": good + html,
        "jpeg_header_only.jpg": jpeg[:20],
        "garbage_after_magic.webp": b"RIFF\x20\0\0\0WEBPVP8 " + b"\xff" * 24,
    }
    for name, data in corpus.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
