"""``protocol.framing``: the framings an adapter binds, read back what they write, whole, in
pieces and pushed; a cut stream is ``TruncatedStream``; a payload no framing can hold is a
``VendorDataError`` naming the vendor. The JSON-array framing is checked against Gemini's
own reader of that framing (``gemini.sse_chunks`` reads a JSON-array body too)."""

from __future__ import annotations

import json

import pytest

from toolwire import adapters
from toolwire.errors import TruncatedStream, VendorDataError
from toolwire.protocol.fields import Fields
from toolwire.protocol.framing import json_array_framing, sse_framing

CHUNKS = [
    {"candidates": [{"content": {"parts": [{"text": 'h\u00e9llo, "world"\n'}]}}]},
    {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {"a": [1]}}}]}}]},
    {"usageMetadata": {"promptTokenCount": 3}},
]

FRAMING = json_array_framing(Fields("acme"))


def test_the_json_array_framing_reads_back_what_it_writes() -> None:
    body = FRAMING.write(CHUNKS)
    assert body.startswith(b"[{") and body.endswith(b"}]")
    assert json.loads(body) == CHUNKS  # a JSON array any reader takes
    assert list(FRAMING.read(body)) == CHUNKS
    assert list(FRAMING.read(body.decode("utf-8"))) == CHUNKS
    assert list(FRAMING.read([body[i : i + 3] for i in range(0, len(body), 3)])) == CHUNKS
    reader = FRAMING.reader()
    pushed = [c for i in range(0, len(body), 5) for c in reader.feed(body[i : i + 5])]
    assert pushed + reader.close() == CHUNKS and reader.done
    assert (FRAMING.name, FRAMING.media_type) == ("json-array", "application/json")


def test_gemini_reads_the_json_array_framing_as_its_own() -> None:
    body = FRAMING.write(CHUNKS)
    assert list(adapters.get("gemini").FRAMING.read(body)) == CHUNKS


def test_a_cut_json_array_is_a_truncated_stream() -> None:
    body = FRAMING.write(CHUNKS)
    reader = FRAMING.reader()
    reader.feed(body[:-1])
    assert not reader.done
    with pytest.raises(TruncatedStream, match="acme"):
        reader.close()
    with pytest.raises(TruncatedStream):
        list(FRAMING.read(body[: len(body) // 2]))


def test_a_payload_the_framing_cannot_hold_is_named() -> None:
    with pytest.raises(VendorDataError, match=r"acme.*payload 1"):
        FRAMING.write([{"a": 1}, {"b": object()}])
    with pytest.raises(VendorDataError, match=r"acme.*payload 0"):
        FRAMING.write([["not", "an", "object"]])


def test_an_sse_framing_pushes_as_it_reads_and_stops_at_its_end_marker() -> None:
    def read(body: object) -> list[dict[str, object]]:
        raise AssertionError("not called")

    framing = sse_framing("acme", read, lambda chunks: b"", stop_at="[DONE]")  # type: ignore[arg-type]
    reader = framing.reader()
    body = b'data: {"a":1}\n\ndata: [DONE]\n\ndata: {"b":2}\n\n'
    assert reader.feed(body) == [{"a": 1}] and reader.done
    assert reader.close() == []
    with pytest.raises(VendorDataError, match="acme"):
        framing.reader().feed(b"data: [1]\n\n")
