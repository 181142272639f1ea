"""What a delta form's declaration admits and what its reader makes of a match
(``protocol._fastpath``): members declared with any scalar value (``SCALAR``), other members
admitted from a declared place on (``OTHERS_FROM_HERE``), a text's escapes read as JSON
reads them whichever way they are written, and the number a matched event is named by when
it is read again alone. Each expression must admit JSON only, and each value read from a
match must be the one ``json.loads`` gives."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from test_fastpath import _both, _pieces, _responses_body

from toolwire.errors import VendorDataError
from toolwire.protocol._fastpath import (
    OTHERS_FROM_HERE,
    SCALAR,
    DeltaForm,
    Index,
    Maybe,
    OneOf,
    Text,
    Whole,
)
from toolwire.protocol.limits import configure, limits
from toolwire.protocol.sse import sse_json_values

# -- a text's escapes


def _written(text: str, rng: random.Random) -> str:
    """``text`` as a JSON string, each character that may be escaped written one of the
    ways JSON allows (``\\"``, ``\\u0022``; ``/`` or ``\\/``; ``\\n`` or ``\\u000a`` ...)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        short = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\b": "\\b",
                 "\f": "\\f", "\r": "\\r", "/": "\\/"}.get(ch)  # fmt: skip
        ways = [f"\\u{code:04x}", f"\\u{code:04X}"] if code <= 0xFFFF else []
        if short is not None:
            ways.append(short)
        if ch not in '"\\' and code >= 0x20:
            ways.append(ch)
        out.append(rng.choice(ways) if ways else ch)
    out.append('"')
    return "".join(out)


_ONE_TEXT = DeltaForm({"s": Text("s")})
# quotes and backslashes most of all: the escapes argument text is made of
_QUOTED = st.text(st.sampled_from('""\\\\a/\n\té\u2028\x01\U0001f600'), max_size=16)


@given(_QUOTED, st.integers(min_value=0, max_value=2**32))
@example('"', 0)
@example('\\"', 0)
@example('a\\"b"', 0)
def test_a_text_reads_as_json_reads_it_however_its_escapes_are_written(
    text: str, seed: int
) -> None:
    written = _written(text, random.Random(seed))
    found = _ONE_TEXT.pattern.fullmatch(f'data: {{"s":{written}}}\n\n')
    assert found is not None  # (no surrogate among these characters)
    assert _ONE_TEXT.read(found) == (json.loads(written),)


@pytest.mark.parametrize(
    "written",
    [
        r'"\\\""',  # a backslash, then a quote: not two quotes
        r'"\"\\"',
        r'"a\\"',
        r'"\\\\\""',
        r'"\u0022\""',  # a quote spelled both ways
        r'"\/\""',
        r'"\"\n"',
    ],
)
def test_a_quote_among_other_escapes_reads_as_json_reads_it(written: str) -> None:
    found = _ONE_TEXT.pattern.fullmatch(f'data: {{"s":{written}}}\n\n')
    assert found is not None
    assert _ONE_TEXT.read(found) == (json.loads(written),)


# -- members declared with any scalar value, others from a declared place on

_FORM = DeltaForm(
    {"kind": "d", "seq": SCALAR, "at": Index("at"), OTHERS_FROM_HERE: SCALAR, "text": Text("text")}
)


@pytest.mark.parametrize(
    ("data", "fields"),
    [
        ('{"kind":"d","seq":1,"at":0,"text":"x"}', (0, "x")),
        ('{"kind":"d","seq":"s","at":2,"text":"x"}', (2, "x")),
        ('{"kind":"d","seq":null,"at":2,"text":"x"}', (2, "x")),
        ('{"kind":"d","seq":-1.5e3,"at":2,"text":"x"}', (2, "x")),
        ('{"kind":"d","seq":true,"at":2,"o":1,"text":"x","p":"q"}', (2, "x")),
        ('{"kind":"d","seq":1,"at":2,"text":"x","o":null,"p":false}', (2, "x")),
        # not matched: a container where a scalar is declared, a declared member missing,
        # others before the place they are declared from, a declared key written again
        ('{"kind":"d","seq":[],"at":2,"text":"x"}', None),
        ('{"kind":"d","seq":{},"at":2,"text":"x"}', None),
        ('{"kind":"d","at":2,"text":"x"}', None),
        ('{"kind":"d","o":1,"seq":1,"at":2,"text":"x"}', None),
        ('{"kind":"d","seq":1,"o":1,"at":2,"text":"x"}', None),
        ('{"kind":"d","seq":1,"at":2,"seq":3,"text":"x"}', None),
        ('{"kind":"d","seq":1,"at":2,"text":"x","at":3}', None),
        ('{"kind":"d","seq":1,"at":2,"text":"x","text":"y"}', None),
        ('{"kind":"d","seq":01,"at":2,"text":"x"}', None),  # (not JSON)
    ],
)
def test_declared_scalars_and_others_from_a_place_on(
    data: str, fields: tuple[Any, ...] | None
) -> None:
    found = _FORM.pattern.fullmatch(f"data: {data}\n\n")
    if fields is None:
        assert found is None
        return
    assert found is not None
    assert _FORM.read(found) == fields
    value = json.loads(found.group("data"))
    assert (value["at"], value["text"]) == fields


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=4)
)
_KEYS = st.sampled_from(["kind", "seq", "at", "text", "o", "p"])


@given(st.lists(st.tuples(_KEYS, _SCALARS | st.just([])), max_size=7), st.integers(0, 3))
def test_whatever_the_form_admits_is_one_object_with_those_fields(
    members: list[tuple[str, Any]], at: int
) -> None:
    """Objects built of the declared keys and others, in any order, written twice or not:
    a match is one JSON object whose declared values are the fields read."""
    base = [("kind", "d"), ("seq", 1), ("at", at), ("text", "t")]
    pairs = base[:2] + members[:2] + base[2:] + members[2:]
    data = "{" + ",".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in pairs) + "}"
    found = _FORM.pattern.fullmatch(f"data: {data}\n\n")
    if found is None:
        return
    value = json.loads(data)  # (json takes a key's last value)
    assert _FORM.read(found) == (value["at"], value["text"])
    assert value["kind"] == "d" and not isinstance(value["seq"], (list, dict))
    assert list(value).index("at") < list(value).index("text")


def test_a_field_that_may_be_absent_is_none_and_one_that_must_be_there_is_read() -> None:
    form = DeltaForm(
        {"a": Index("a"), "b": OneOf({"i": Index("i")}, {"t": Text("t")}), "c": Maybe(Index("c"))}
    )
    read = [
        form.read(m)
        for m in form.pattern.finditer(
            'data: {"a":1,"b":{"i":2}}\n\ndata: {"a":3,"b":{"t":"x"},"c":4}\n\n'
        )
    ]
    assert read == [(1, 2, None, None), (3, None, "x", 4)]


# -- OpenAI Responses: its deltas as OpenAI writes them, and written another way


def _responses_variant(body: str, how: str) -> str:
    """Each delta of ``body`` written another way OpenAI's own form does not take."""
    out = []
    for line in body.split("\n"):
        if line.startswith("data: ") and ".delta" in line:
            value = json.loads(line[6:])
            if how == "no sequence number":
                value.pop("sequence_number", None)
            elif how == "item id a number":
                value["item_id"] = 7
            elif how == "item id first":
                value = {"item_id": value.pop("item_id", "x"), **value}
            elif how == "huge sequence number":
                value["sequence_number"] = "HUGE"
            elif how == "sequence number a list":
                value["sequence_number"] = [1]
            text = json.dumps(value, separators=(",", ":"))
            line = "data: " + text.replace('"HUGE"', "9" * 5000)
        out.append(line)
    return "\n".join(out)


_DELTAS = [
    ("compact", "function_call_arguments", 1, '{"a": "b\\"c"}'),
    ("ascii", "output_text", 0, 'h\u00e9\u2028llo \\ "q"'),
    ("bare", "function_call_arguments", 1, '"'),
    ("compact", "output_text", 4, "to no item"),
    ("compact", "output_text", 0, "\ud800 lone"),
]


@pytest.mark.parametrize(
    "how",
    [
        "as written",
        "no sequence number",
        "item id a number",
        "item id first",
        "huge sequence number",
        "sequence number a list",
    ],
)
@pytest.mark.parametrize("cuts", [[], [1, 150, 151, 600, 900]])
def test_responses_deltas_written_any_way_read_the_same_fused(how: str, cuts: list[int]) -> None:
    body = _responses_body(_DELTAS, True)
    other = body if how == "as written" else _responses_variant(body, how)
    fused, plain = _both("openai_responses", _pieces(other, cuts, as_bytes=False))
    assert fused == plain
    if how == "huge sequence number":
        assert fused[0] == "error" and "digits" in fused[2]


# -- a matched event read again alone is named by its number


def test_a_matched_event_read_again_names_its_number_as_the_general_reading_does() -> None:
    """A match the rule passes is made the chunk it always was: its error (here a depth
    cap lowered after its piece was read fused) names the event the general reading
    names, not event 0."""
    form = DeltaForm({"k": Text("k"), "v": Whole("v", 2)})
    values = [{"other": 1}] * 3 + [{"k": "x", "v": 1}] * 2 + [{"k": "x", "v": [[1]]}]
    body = "".join(f"data: {json.dumps(v, separators=(',', ':'))}\n\n" for v in values)
    reader = sse_json_values(body, "vendor-x")
    items = reader.fused(form)
    got = [next(items) for _ in range(6)]
    assert [type(x).__name__ for x in got] == ["CheckedObject"] * 3 + ["Match"] * 3
    previous = limits().max_json_depth
    configure(max_json_depth=2)
    try:
        with pytest.raises(VendorDataError) as fused:
            reader.chunk(got[5])
        with pytest.raises(VendorDataError) as plain:
            list(sse_json_values(body, "vendor-x"))
    finally:
        configure(max_json_depth=previous)
    assert "SSE event 5" in str(fused.value)
    assert str(fused.value) == str(plain.value)


def test_the_number_of_each_match_counts_every_event_before_it() -> None:
    form = DeltaForm({"k": Text("k")})
    texts = [f'{{"k":"a{i}"}}' if i % 3 else f'{{"n":{i}}}' for i in range(12000)]
    body = "".join(f"data: {text}\n\n" for text in texts)
    assert len(body) > 2 * (1 << 16)  # (several pieces: a body is read 64 KiB at a time)
    reader = sse_json_values(body, "vendor-x")
    named = [  # (asked as a loop asks: of the match it reads)
        (texts[reader.number(item)], item.group("data"))
        for item in reader.fused(form)
        if not isinstance(item, dict)
    ]
    assert len(named) > 7900  # (an event cut between two pieces is read line by line)
    assert all(text == data for text, data in named)
