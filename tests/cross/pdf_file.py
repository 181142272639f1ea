"""One writer of real PDF files for the tests that need one (a valid cross-reference table,
so a PDF reader, or a vendor, would open it): the objects are the caller's."""

from __future__ import annotations

PLAIN_HEADER = b"%PDF-1.4\n"
#: a 1.7 header with the comment line of high bytes that marks a file as binary
BINARY_HEADER = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"


def pdf_file(objects: list[bytes], header: bytes = PLAIN_HEADER) -> bytes:
    """``objects`` numbered from 1 (object 1 the catalog), with their xref and trailer."""
    out = bytearray(header)
    offsets = []
    for n, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
