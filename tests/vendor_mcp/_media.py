"""Small, real media files made here (no fixture files): a PNG, a WAV, a PDF."""

from __future__ import annotations

import base64
import io
import struct
import wave
import zlib

from pdf_file import pdf_file


def png(width: int = 2, height: int = 2) -> bytes:
    """A valid RGB PNG (signature, IHDR, IDAT, IEND with their CRCs)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def wav(frames: int = 80) -> bytes:
    """A mono 8 kHz 16-bit WAV of silence, written by the standard library."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x00" * frames)
    return out.getvalue()


def pdf() -> bytes:
    """A one-page PDF with a correct cross-reference table."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>",
    ]
    return pdf_file(objects)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
