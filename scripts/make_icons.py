#!/usr/bin/env python3
"""Draws Varsel's app icons (a white bell on the accent blue) as PNG files, with the standard library only.

Run once after changing the design; the PNGs are committed: python3 scripts/make_icons.py
"""
import struct
import zlib
from pathlib import Path

ACCENT = (0x0B, 0x4F, 0x8A)
WHITE = (0xFF, 0xFF, 0xFF)
STATIC = Path(__file__).resolve().parent.parent / "Sources/VarselWeb/Resources/static"


def inside_bell(x: float, y: float) -> bool:
    """Whether the point (in a unit square, y down) is on the bell: dome, flared body, rim and clapper."""
    cx = 0.5
    if 0.22 <= y <= 0.62:  # body: widens from the dome to the rim
        t = (y - 0.22) / 0.40
        half = 0.16 + 0.12 * t * t
        if abs(x - cx) <= half:
            return True
    if (x - cx) ** 2 + (y - 0.24) ** 2 <= 0.16 ** 2 and y <= 0.26:  # dome
        return True
    if 0.62 <= y <= 0.68 and abs(x - cx) <= 0.34:  # rim
        return True
    if (x - cx) ** 2 + (y - 0.74) ** 2 <= 0.065 ** 2:  # clapper
        return True
    return (x - cx) ** 2 + (y - 0.10) ** 2 <= 0.04 ** 2  # knob


def draw(size: int, scale: float) -> bytes:
    """The icon as RGB rows; `scale` shrinks the bell toward the centre (maskable icons keep a safe zone)."""
    rows = []
    samples = [(i + 0.5) / 3 for i in range(3)]  # 3×3 supersampling for smooth edges
    for py in range(size):
        row = bytearray([0])
        for px in range(size):
            hits = 0
            for sy in samples:
                for sx in samples:
                    x = ((px + sx) / size - 0.5) / scale + 0.5
                    y = ((py + sy) / size - 0.5) / scale + 0.5
                    hits += inside_bell(x, y)
            a = hits / 9
            row += bytes(round(ACCENT[i] * (1 - a) + WHITE[i] * a) for i in range(3))
        rows.append(bytes(row))
    return b"".join(rows)


def png(size: int, pixels: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(pixels, 9)) + chunk(b"IEND", b"")


if __name__ == "__main__":
    for name, size, scale in [("icon-192.png", 192, 0.9), ("icon-512.png", 512, 0.9),
                              ("icon-maskable-512.png", 512, 0.62), ("apple-touch-icon.png", 180, 0.8)]:
        (STATIC / name).write_bytes(png(size, draw(size, scale)))
        print("wrote", name)
