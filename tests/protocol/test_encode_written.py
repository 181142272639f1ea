"""The bytes path of the encode direction (a framing's ``write`` of an untouched
``encode_stream`` result) writes some chunks from a template (``Written``); its bytes, and
its errors, must be those of the dict path (``feed`` of each event, ``close``, the chunk
dicts written by the same framing) for every input: plain runs, the odd and bad streams of
``test_encode_batched``, random ones with hostile ids, names and arguments, cut anywhere.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _agui_builders import (
    args,
    end,
    run_finished,
    run_started,
    start,
    text,
    text_end,
    text_start,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_encode_batched import STREAMS, _mixed, _models

from toolwire import adapters
from toolwire.protocol._compact_json import compact
from toolwire.protocol._written import HOLE, Written, template
from toolwire.protocol.decoding import written_chunks

#: the encoders that hand some chunks as text on the bytes path
WRITTEN = ["gemini", "mistral", "ollama"]
VENDORS = ["gemini", "mistral", "ollama", "anthropic", "openai_chat"]


def _outcome(run: Any) -> tuple[bytes | None, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return run(), None
        except Exception as exc:  # the error is part of what must agree
            return None, (type(exc), str(exc))


def _dict_path(vendor: str, events: list[Any], **options: Any) -> tuple[bytes | None, Any]:
    """Each event fed in turn, then ``close``: the chunk dicts, written by the framing (an
    error while encoding leaves the error; the chunks before it are not written)."""
    adapter = adapters.get(vendor)

    def run() -> bytes:
        encoder = adapter.Encoder(**options)
        chunks: list[Any] = []
        for ev in events:
            chunks += encoder.feed(ev)
        chunks += encoder.close()
        return bytes(adapter.FRAMING.write(chunks))

    return _outcome(run)


def _bytes_path(vendor: str, events: list[Any], **options: Any) -> tuple[bytes | None, Any]:
    adapter = adapters.get(vendor)
    return _outcome(lambda: bytes(adapter.FRAMING.write(adapter.encode_stream(events, **options))))


def _streamed_dicts(vendor: str, events: list[Any], **options: Any) -> tuple[bytes | None, Any]:
    """``encode_stream``'s chunk dicts (the iterator taken, so no chunk is ``Written``)
    written as they come: a chunk that cannot be written fails before later events do."""
    adapter = adapters.get(vendor)

    def run() -> bytes:
        stream = adapter.encode_stream(events, **options)
        return bytes(adapter.FRAMING.write(c for c in stream))

    return _outcome(run)


def _same(vendor: str, events: list[Any], **options: Any) -> None:
    got = _bytes_path(vendor, events, **options)
    assert got == _streamed_dicts(vendor, events, **options)
    if got[1] is None:  # and what feed of each event, then close, makes
        assert got == _dict_path(vendor, events, **options)


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("name", sorted(STREAMS))
def test_the_bytes_path_writes_what_the_dict_path_writes(vendor: str, name: str) -> None:
    for form in (_models, _mixed, list):
        events = form(STREAMS[name])
        for cut in range(len(events) + 1):
            _same(vendor, events[:cut])


def _plain_run(n: int) -> list[Any]:
    calls = [
        e
        for i in range(n)
        # (ids every vendor takes as they are: nine letters and digits)
        for e in (start(f"c{i:08d}", parent="m1"), args(f"c{i:08d}", '{"a":1}'), end(f"c{i:08d}"))
    ]
    return _models(
        [run_started(), text_start("m1"), text("m1", "hi"), text_end("m1"), *calls, run_finished()]
    )


@pytest.mark.parametrize("vendor", WRITTEN)
def test_whole_calls_are_written_from_the_template(vendor: str) -> None:
    """On the bytes path a plain run's calls come as ``Written`` (so the tests here compare
    two ways), and each text is its dict's text."""
    adapter = adapters.get(vendor)
    got = list(written_chunks(adapter.encode_stream(_plain_run(3))))
    written = [c for c in got if type(c) is Written]
    assert len(written) == 3
    for chunk in written:
        assert chunk.text == compact(chunk.make())
    # a started iterator is the dict path: no Written ever reaches a caller
    stream = adapter.encode_stream(_plain_run(3))
    first = next(stream)
    rest = list(written_chunks(stream))
    assert all(type(c) is dict for c in [first, *rest])
    assert [first, *rest] == list(adapter.encode_stream(_plain_run(3)))


@pytest.mark.parametrize("vendor", WRITTEN)
def test_a_started_stream_written_is_the_rest_of_its_chunks(vendor: str) -> None:
    adapter = adapters.get(vendor)
    whole = list(adapter.encode_stream(_plain_run(4)))
    stream = adapter.encode_stream(_plain_run(4))
    next(stream)
    assert adapter.FRAMING.write(stream) == adapter.FRAMING.write(whole[1:])


@pytest.mark.parametrize("vendor", WRITTEN)
def test_arguments_nested_near_the_cap_are_refused_alike(vendor: str) -> None:
    for n in range(185, 201):
        deep = '{"d":' + "[" * n + "]" * n + "}"
        events = _models([start("a", parent="m"), args("a", deep), end("a")])
        _same(vendor, events)


@pytest.mark.parametrize("vendor", WRITTEN)
def test_a_chunk_made_late_is_the_chunk_of_its_time(vendor: str) -> None:
    """A chunk the writer makes as a dict (arguments nested near the cap) after the run's
    end changed the encoder (its model named by the usage, its ids reset) in the same
    slice of events is the chunk the dict path made when the call came."""
    usage = [{"provider": "p", "model": "named-late", "inputTokens": 1, "outputTokens": 2}]
    wide = ['{"w":[' + ",".join(["[]"] * n) + "]}" for n in (150, 199, 200, 400)]
    for deep in [*wide, *('{"d":' + "[" * n + "]" * n + "}" for n in (190, 194, 197))]:
        events = _models(
            [
                run_started(),
                text_start("m1"),
                text("m1", "hi"),
                text_end("m1"),
                start("a", parent="m1"),
                args("a", deep),
                end("a"),
                start("b", parent="m1"),
                args("b", '{"x":1}'),
                end("b"),
                run_finished(usage=usage),
            ]
        )
        _same(vendor, events)


def test_a_template_is_cut_at_its_holes_only() -> None:
    assert template({"a": HOLE, "b": [HOLE]}, 2) == ('{"a":', ',"b":[', "]}")
    # a constant value (or key) that is the hole's value cannot be told from it: no template
    assert template({"a": HOLE, "b": HOLE}, 1) is None
    assert template({"a": HOLE, HOLE: 1}, 1) is None
    # a value that only holds it is written otherwise (no quote ends it there)
    assert template({"a": HOLE, "b": HOLE + "x"}, 1) == ('{"a":', r',"b":"\u0000hole\u0000x"}')
    assert template({"a": HOLE}, 2) is None
    assert template({"a": HOLE, "b": object()}, 1) is None


@pytest.mark.parametrize(
    ("vendor", "option"),
    [("gemini", "model_version"), ("ollama", "model"), ("ollama", "created_at")],
)
def test_constants_json_cannot_hold_fail_alike(vendor: str, option: str) -> None:
    for value in (object(), float("nan"), {"x": 1}, 7):
        _same(vendor, _plain_run(2), **{option: value})


_HOSTILE_TEXT = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["", "\ud83d", "a\u2028b", '"', "\\", HOLE, "\x00hole", "é", "\n"]),
)
_ARGS = st.one_of(
    st.sampled_from(
        [
            "",
            "{}",
            '{"a":1}',
            '{"a": 1}',
            '{"a":1.0}',
            '{"a":1e5}',
            '{"a":-0}',
            '{"k":1,"k":2}',
            "[1]",
            "not json",
            '{"s":"\\ud83d"}',
            '{"n":NaN}',
            '{"a":{"b":[1,{"c":null}]}}',
            "{" * 300 + "}" * 300,
            # arguments the cap takes, in a chunk that nests them past it
            *('{"d":' + "[" * n + "]" * n + "}" for n in (190, 194, 195, 196, 197, 198, 199)),
            '{"d":' + "[" * 600 + "]" * 600 + "}",
            '{"u":"\u2028"}',
        ]
    ),
    st.dictionaries(st.text(max_size=4), st.one_of(st.integers(), st.text(max_size=4))).map(
        compact
    ),
)


@st.composite
def _streams(draw: Any) -> list[Any]:
    events: list[Any] = []
    if draw(st.booleans()):
        events.append(run_started())
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["call", "call", "call", "text", "sig", "result", "open"]))
        cid = draw(_HOSTILE_TEXT)
        if kind == "text":
            mid = draw(_HOSTILE_TEXT)
            events += [text_start(mid), text(mid, draw(_HOSTILE_TEXT))]
        elif kind == "sig":
            events.append(
                {
                    "type": "REASONING_ENCRYPTED_VALUE",
                    "subtype": draw(st.sampled_from(["tool-call", "message"])),
                    "entityId": cid,
                    "encryptedValue": draw(_HOSTILE_TEXT),
                }
            )
        elif kind == "result":
            events.append({"type": "TOOL_CALL_RESULT", "toolCallId": cid, "messageId": "r"})
        else:
            parent = draw(st.one_of(st.none(), _HOSTILE_TEXT))
            meta = draw(st.sampled_from([None, {"gemini.id": "vendor-id"}, {"x": 1}]))
            first = start(cid, name=draw(_HOSTILE_TEXT), parent=parent)
            if meta is not None:
                first["metadata"] = meta
            events += [first, args(cid, draw(_ARGS))]
            if kind == "call":
                events.append(end(cid))
    if draw(st.booleans()):
        events.append(run_finished())
    return events


@pytest.mark.parametrize("vendor", WRITTEN)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=_streams(), cut=st.integers(0, 40), data=st.data())
def test_random_streams_cut_anywhere_write_alike(
    vendor: str, events: list[Any], cut: int, data: Any
) -> None:
    options = data.draw(
        st.fixed_dictionaries(
            {},
            optional={"response_id": _HOSTILE_TEXT, "model_version": _HOSTILE_TEXT},
        )
    )
    form = data.draw(st.sampled_from([_models, _mixed, list]))
    events = form(events)[:cut]
    _same(vendor, events, **options)
