"""``jsontext.clean_objects`` (a piece's payloads parsed in one go) against what each text
gives parsed alone by the stdlib: it may refuse a text (``None``: its reader reads it alone),
never return a value the text alone would not give, and must not refuse plain objects. The
SSE readers built on it keep their event-by-event errors and laziness."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.errors import VendorDataError
from toolwire.protocol.jsontext import _BATCH, CheckedObject, clean_objects
from toolwire.protocol.limits import limits
from toolwire.protocol.sse import sse_json_objects, sse_json_values

_KEY = st.text(st.characters(codec="utf-8"), max_size=5)
_LEAF = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _KEY
_VALUE = st.recursive(
    _LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEY, inner, max_size=3),
    max_leaves=12,
)
_OBJECT = st.dictionaries(_KEY, _VALUE, max_size=4)


def _alone(text: str) -> Any:
    """The stdlib's reading of one text, or a marker that it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


_NOT_JSON = object()


def _assert_faithful(texts: list[str], out: list[CheckedObject | None]) -> None:
    assert len(out) == len(texts)
    for text, value in zip(texts, out, strict=True):
        if value is None:
            continue
        alone = _alone(text)
        assert type(alone) is dict, f"{text!r} is not one JSON object, yet was read as one"
        assert value == alone
        assert isinstance(value, CheckedObject) and value.trusted()


@given(st.lists(_OBJECT, min_size=1, max_size=6))
def test_plain_objects_are_all_read_and_equal_their_own_parse(values: list[Any]) -> None:
    texts = [json.dumps(v, ensure_ascii=False) for v in values]
    out = clean_objects(texts)
    assert None not in out
    assert out == [json.loads(t) for t in texts]


@given(st.lists(_VALUE, min_size=1, max_size=5), st.data())
def test_any_recut_of_json_text_never_reads_a_text_as_what_it_is_not(
    values: list[Any], data: st.DataObject
) -> None:
    """The texts of several values run together and cut again anywhere: a text that is not
    one JSON object alone must not come back as one (a plain ``[a,b,...]`` join would read
    ``{"a":[{}`` ``{}]}`` ``{},{}`` as three objects)."""
    whole = ",".join(json.dumps(v) for v in values)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(whole)), max_size=6)))
    texts = [whole[a:b] for a, b in zip([0, *cuts], [*cuts, len(whole)], strict=True)]
    _assert_faithful(texts, clean_objects(texts))


@pytest.mark.parametrize(
    "texts",
    [
        ['{"a":[{}', "{}]}", "{},{}"],  # a container across a seam, two values in one text
        ['{"a":"', '"}', '{"b":1}'],  # a string across a seam
        ['{"a":1},{"b":2}', '{"c":3}'],  # two values in one text
        ['{"a":1}', '{"b":2}]'],  # closes the batch early
        ['{"a":1}', '{"b":2}] , ["x"'],
        ['{"a":1},"0123456789abcdef"', '{"b":2}'],  # a made-up seam
        ["", '{"b":2}'],
        ['\ufeff{"a":1}', '{"b":2}'],  # json.loads refuses a BOM
    ],
)
def test_texts_that_are_not_one_object_each_are_never_read_as_one(texts: list[str]) -> None:
    out = clean_objects(texts)
    _assert_faithful(texts, out)
    for text, value in zip(texts, out, strict=True):
        if _alone(text) is _NOT_JSON:
            assert value is None


def test_a_text_the_rules_refuse_is_left_to_its_reader_and_its_neighbours_are_read() -> None:
    cap = limits().max_json_depth
    deep = '{"a":' + "[" * cap + "]" * cap + "}"
    texts = ['{"a":1}', deep, '{"s":"\\ud83d"}', "[1]", '{"b":2}']
    out = clean_objects(texts)
    assert out[0] == {"a": 1} and out[4] == {"b": 2}
    assert out[1] is None  # nested past the cap: load_json names it
    assert out[2] is None  # a lone surrogate: load_json repairs it with a warning
    assert out[3] is None  # not an object


def _body(datas: list[str]) -> bytes:
    return "".join(f"data: {d}\n\n" for d in datas).encode()


def test_the_reader_names_the_first_bad_event_after_handing_on_the_ones_before() -> None:
    datas = ['{"n":0}', '{"n":1}', '{"a":[{}', "{}]}", "{},{}", '{"n":5}']
    got: list[dict[str, Any]] = []
    with pytest.raises(VendorDataError, match="SSE event 2"):
        for value in sse_json_values(_body(datas), "v"):
            got.append(value)
    assert got == [{"n": 0}, {"n": 1}]


def test_the_reader_stops_at_done_inside_a_piece_and_counts_what_follows() -> None:
    datas = ['{"n":0}', '{"n":1}', "[DONE]", '{"n":3}', '{"n":4}']
    with pytest.warns(Warning, match="2 SSE event"):
        got = [v for _, v in sse_json_objects(_body(datas), "v", stop_at="[DONE]")]
    assert got == [{"n": 0}, {"n": 1}]


def test_more_texts_than_one_batch_are_all_read_and_a_bad_batch_spoils_no_other() -> None:
    texts = [json.dumps({"n": i}) for i in range(1000)]
    texts[300] = '{"a":[{}'  # not JSON alone: its batch is read text by text
    out = clean_objects(texts)
    assert len(out) == 1000 and out[300] is None
    for i, value in enumerate(out):
        assert value is None or value == {"n": i}
    refused = [i for i, value in enumerate(out) if value is None]
    assert refused[-1] - refused[0] < _BATCH  # only the bad text's own batch
    assert out[0] == {"n": 0} and out[-1] == {"n": 999}


def test_events_split_across_many_pieces_read_the_same_as_whole() -> None:
    datas = [json.dumps({"n": i, "s": "x" * (i % 7)}) for i in range(300)]
    body = _body(datas)
    pieces = [body[i : i + 97] for i in range(0, len(body), 97)]
    assert list(sse_json_values(pieces, "v")) == [json.loads(d) for d in datas]
