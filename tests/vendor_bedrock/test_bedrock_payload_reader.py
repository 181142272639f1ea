"""Bedrock's fused reading with its payload reader (runs of one block's deltas read from
the last match's prefix, ``DeltaForm.payload_reader``) against the general reading, on
streams whose runs hold fragments of every kind (escapes good and bad, raw quotes and
controls, surrogates, padding members) with hostile frames, cut anywhere: the same events,
losses, warnings and error."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.protocol.test_fastpath_payload_reader import _FRAGMENTS
from tests.vendor_bedrock.test_bedrock_fused import _HOSTILE, _event, _fused, _general, _hostile
from tests.vendor_bedrock.test_bedrock_fused import _pieces as _cut

from toolwire.adapters.bedrock import wire

_START = b'{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"tu_1","name":"f"}}}'


def _delta(index: int, key: str, fragment: str, tail: str, raw: bool) -> bytes:
    text = f'"{fragment}"' if raw else json.dumps(fragment, ensure_ascii=False)
    inner = {"toolUse": f'{{"input":{text}}}', "reasoningContent": f'{{"text":{text}}}'}
    value = inner.get(key, text)
    payload = f'{{"contentBlockIndex":{index},"delta":{{"{key}":{value}}}{tail}'
    return _event("contentBlockDelta", payload.encode("utf-8", "surrogatepass"))


_RUN = st.lists(
    st.tuples(
        st.sampled_from([0, 1, 1, 1, 2]),
        st.sampled_from(["toolUse", "toolUse", "text", "reasoningContent"]),
        _FRAGMENTS,
        st.sampled_from(["}", "}", ',"p":"abcdef"}', ',"p":1}', "}x", ',"delta":1}']),
        st.booleans(),
    ),
    max_size=16,
)


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(_RUN, _HOSTILE, st.lists(st.integers(min_value=0), max_size=5))
def test_runs_read_from_a_prefix_give_what_the_general_path_gives(
    run: list[Any], hostile: tuple[str, int], cuts: list[int]
) -> None:
    frames = [_event("messageStart", b'{"role":"assistant"}')]
    frames.append(_event("contentBlockStart", _START))
    frames += [_delta(*step) for step in run]
    for index in (0, 1, 2):
        frames.append(_event("contentBlockStop", b'{"contentBlockIndex":%d}' % index))
    frames.append(_event("messageStop", b'{"stopReason":"tool_use"}'))
    body = _hostile(frames, *hostile)
    with pytest.MonkeyPatch.context() as patch:
        for pieces in ([body], _cut(body, cuts)):
            assert _fused(pieces) == _general(pieces, patch)


def test_a_run_of_deltas_is_read_from_its_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call's fragments after its first come as the payload reader's tuples (so the test
    above reads that way), and give the events the general way gives."""
    made: list[Any] = []
    reader = wire.DELTA_FORM.payloads_reader

    def counted() -> Any:
        read_all = reader()

        def each(items: list[Any]) -> list[int]:
            texts = [at for at, item in enumerate(items) if type(item) is str]
            missed = read_all(items)
            made.extend(type(items[at]).__name__ for at in texts)
            return missed

        return each

    fragments = ['{"a": ', '"b\\"c"', ", ", '"d"}']
    frames = [_event("messageStart", b'{"role":"assistant"}'), _event("contentBlockStart", _START)]
    frames += [_delta(1, "toolUse", f, "}", False) for f in fragments]
    frames += [_event("contentBlockStop", b'{"contentBlockIndex":1}')]
    frames += [_event("messageStop", b'{"stopReason":"tool_use"}')]
    body = b"".join(frames)
    with pytest.MonkeyPatch.context() as patch:
        general = _general([body], patch)
    monkeypatch.setattr(wire.DELTA_FORM, "payloads_reader", counted)
    assert _fused([body]) == general
    assert made == ["Match", "tuple", "tuple", "tuple"]
    assert general[0] == "ok"
    args = [e["delta"] for e in general[1] if e["type"] == "TOOL_CALL_ARGS"]
    assert args == fragments


def test_a_caller_s_tuple_chunk_is_no_payload_reader_s() -> None:
    """Only toolwire's own reader hands the loop a payload reader's tuples: a tuple among a
    caller's chunks is refused as any chunk that is no object is, never given to the rule."""
    from toolwire.adapters import bedrock
    from toolwire.errors import VendorDataError

    start = {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tu_1", "name": "f"}}}
    chunks = [{"messageStart": {"role": "assistant"}}, {"contentBlockStart": start}]
    chunks.append(("text", 1, None, "a", None))  # type: ignore[arg-type]
    with pytest.raises(VendorDataError, match="chunk 2: expected a JSON object, got tuple"):
        list(bedrock.decode_stream(chunks))
