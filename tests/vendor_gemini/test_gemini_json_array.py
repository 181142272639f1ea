"""``streamGenerateContent`` without ``alt=sse`` (issue 11.2): one JSON array, any split.

Each recorded SSE stream (ours and the corpus') is written again in the JSON-array
framing Gemini uses without ``alt=sse`` (``[{...}`` then ``,\\r\\n{...}`` ... ``]``); every
element is checked with google-genai's own response type. Both framings must give
identical events, whatever the byte splits, from a body and from a raw byte iterator.
"""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from _gemini_sdk import CORPUS, OWN, sdk_parse_sse
from google.genai import errors as genai_errors
from hypothesis import given
from hypothesis import strategies as st

from toolwire import cli
from toolwire.adapters import gemini
from toolwire.adapters.gemini.wire import FIELDS
from toolwire.errors import ToolwireError, TruncatedStream, VendorDataError
from toolwire.protocol.json_array import JsonArrayReader
from toolwire.testing.recording_cache import recording


def _streams() -> list[Any]:
    out = []
    for path in sorted(OWN.glob("*.yaml")) + sorted(CORPUS.glob("*.yaml")):
        for n, ex in enumerate(recording(path)):
            if ex.is_sse and gemini.is_model_exchange(ex):
                out.append(pytest.param(ex.response_body, id=f"{path.stem[:40]}:{n}"))
    return out


STREAMS = _streams()


def _payloads(sse: bytes) -> list[str]:
    return [
        line[5:].strip()
        for line in sse.decode("utf-8").splitlines()
        if line.startswith("data:") and line[5:].strip()
    ]


def as_array(sse: bytes) -> bytes:
    """The same response in the JSON-array framing (CRLF after each comma, as Gemini sends).

    An error the server wrote into an SSE stream outside ``data:`` lines is, in this
    framing, the array's last element.
    """
    lines = sse.decode("utf-8").splitlines()
    raw = [x for x in lines if x.strip() and not x.startswith(("data:", ":", "event:", "id:"))]
    elements = _payloads(sse) + ([json.dumps(json.loads("\n".join(raw)))] if raw else [])
    return ("[" + ",\r\n".join(elements) + "]").encode("utf-8")


def _events(chunks: Any) -> list[dict[str, Any]] | str:
    """The decoded events, or the error the decoder ends with (compared too)."""
    out: list[dict[str, Any]] = []
    decoder = gemini.Decoder()
    try:
        for chunk in chunks:
            out += [e.model_dump(mode="json", by_alias=True) for e in decoder.feed(chunk)]
        out += [e.model_dump(mode="json", by_alias=True) for e in decoder.close()]
    except ToolwireError as exc:
        return f"{len(out)} events, then {type(exc).__name__}: {exc}"
    return out


def _split(body: bytes, cuts: list[int]) -> list[bytes]:
    at = sorted({c % (len(body) + 1) for c in cuts})
    edges = [0, *at, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(edges)]


def test_the_corpus_holds_streams_to_reframe() -> None:
    assert len(STREAMS) >= 10


@pytest.mark.parametrize("sse", STREAMS)
def test_each_element_is_a_response_the_sdk_reads(sse: bytes, tmp_path: Path) -> None:
    elements = list(JsonArrayReader(FIELDS).feed(as_array(sse)))
    assert [json.loads(t) for t in _payloads(sse)] == elements[: len(_payloads(sse))]
    try:
        parsed = sdk_parse_sse(tmp_path, sse)
    except genai_errors.APIError:  # a stream that ends in an error event: the SDK raises
        assert any("error" in json.dumps(e) for e in elements)
        return
    assert len(parsed) == len(elements)


@pytest.mark.parametrize("sse", STREAMS)
def test_both_framings_give_identical_events(sse: bytes) -> None:
    expected = _events(gemini.sse_chunks(sse))
    assert expected, "a stream with nothing in it proves nothing"
    assert _events(gemini.sse_chunks(as_array(sse))) == expected  # a recorded body
    assert _events(gemini.iter_chunks([as_array(sse)])) == expected  # one piece
    assert _events(gemini.iter_chunks([sse])) == expected  # the SSE form, same entry point


@functools.cache
def _whole(sse: bytes) -> tuple[list[dict[str, Any]] | str, bytes]:
    """A stream's events read whole, and its array framing: once per stream, not per example."""
    return _events(gemini.sse_chunks(sse)), as_array(sse)


@pytest.mark.parametrize("sse", STREAMS)
@given(cuts=st.lists(st.integers(min_value=0), max_size=12))
def test_any_split_of_either_framing_gives_the_same_events(sse: bytes, cuts: list[int]) -> None:
    expected, array = _whole(sse)
    assert _events(gemini.iter_chunks(_split(array, cuts))) == expected
    assert _events(gemini.iter_chunks(_split(sse, cuts))) == expected


def test_every_single_byte_split_of_a_small_stream() -> None:
    sse = min((p.values[0] for p in STREAMS), key=len)
    expected = _events(gemini.sse_chunks(sse))
    array = as_array(sse)
    for cut in range(len(array) + 1):
        assert _events(gemini.iter_chunks([array[:cut], array[cut:]])) == expected, cut
    # byte by byte: every split at once
    assert _events(gemini.iter_chunks([array[i : i + 1] for i in range(len(array))])) == expected


def test_memory_holds_one_element_at_most() -> None:
    big = json.dumps({"candidates": [{"content": {"parts": [{"text": 'é\\"}' * 50_000}]}}]})
    body = ("[" + big + ",\r\n" + big + "]").encode()
    reader = JsonArrayReader(FIELDS)
    seen = 0
    most = 0
    for i in range(0, len(body), 997):
        seen += len(reader.feed(body[i : i + 997]))
        most = max(most, len(reader._buf))
    reader.close()
    assert seen == 2 and most <= len(big.encode())


@pytest.mark.parametrize(
    ("body", "error", "says"),
    [
        (b'[{"candidates": []}', TruncatedStream, "without its closing ']'"),
        (b'[{"candidates": [', TruncatedStream, "inside element 0"),
        (b'[{"a": 1}} ]', VendorDataError, "expected an object"),
        (b'[{"a": 1}] x', VendorDataError, "after the closing"),
        (b"[1, 2]", VendorDataError, "expected an object"),
    ],
)
def test_a_cut_or_broken_array_says_where(body: bytes, error: type, says: str) -> None:
    with pytest.raises(error, match=says):
        list(gemini.iter_chunks([body]))


def test_the_cli_decodes_a_cassette_recorded_without_alt_sse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = OWN / "gemini3_parallel_calls_signature.yaml"
    doc = yaml.safe_load(src.read_text())
    for inter in doc["interactions"]:
        resp = inter["response"]
        body = resp["body"]["string"]
        if isinstance(body, str) and body.lstrip().startswith("data:"):
            resp["body"]["string"] = as_array(body.encode()).decode()
            resp["headers"] = {"Content-Type": ["application/json; charset=UTF-8"]}
            inter["request"]["uri"] = inter["request"]["uri"].replace("?alt=sse", "")
    reframed = tmp_path / "no_alt_sse.yaml"
    reframed.write_text(yaml.safe_dump(doc))

    def decoded(path: Path) -> list[Any]:
        assert cli.main(["decode", "--from", "gemini", str(path)]) == 0
        events = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        return [
            {k: v for k, v in e.items() if k not in ("threadId", "runId", "input")} for e in events
        ]

    assert decoded(reframed) == decoded(src)
