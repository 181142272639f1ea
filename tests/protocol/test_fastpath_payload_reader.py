"""A delta form's payload reader (``DeltaForm.payload_reader``): each text it reads, in any
order after any others, gives what the form's expression gives: no match where it has
none, and where it has one, that match or a tuple of the same fields' values (a text read
from the last match's prefix with json's string reader and the field's tail expression)."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.adapters.bedrock.wire import DELTA_FORM
from toolwire.protocol._fastpath import OTHERS, SCALAR, DeltaForm, Index, OneOf, Text

#: escapes, good and bad, and characters a JSON string may not hold raw
_PARTS = ['\\"', "\\\\", "\\n", "\\u00e9", "\\ud800", "\\q", '"', "\x01", "é", "a", "}", "\\"]
_PARTS += ["\ud800", "\\/"]

#: how a fragment may stand between its quotes: as JSON writes it, or broken
_MIDDLES = st.one_of(
    st.text(max_size=12).map(lambda t: json.dumps(t)[1:-1]),
    st.text(max_size=12).map(lambda t: json.dumps(t, ensure_ascii=False)[1:-1]),
    st.text(st.characters(codec="ascii"), max_size=12),  # (raw: quotes, controls, backslashes)
    st.lists(
        st.sampled_from(_PARTS),
        max_size=6,
    ).map("".join),
)
_HEADS = st.sampled_from(
    [
        '{"contentBlockIndex":1,"delta":{"toolUse":{"input":"',
        '{"contentBlockIndex":0,"delta":{"text":"',
        '{"contentBlockIndex":2,"delta":{"reasoningContent":{"text":"',
        '{"contentBlockIndex":1,"p":"x","delta":{"toolUse":{"input":"',
        '{"contentBlockIndex":01,"delta":{"text":"',
        '{"contentBlockIndex":1,"delta":{"toolUse":{"input": "',
    ]
)
_ENDS = ['"}}}', '"}}', '"}}}}', '"}},"p":"abc"}', '"}},"p":1,"q":null}', '"}},"delta":1}']
_ENDS += ['"}}}x', '"},"p":"a"}', '"}}, "p":1}', '"}},"p":[1]}', '"}},"p":"\\u00e9"}']
_ENDS += ['"}},"p":"\\ud800"}']
_TAILS = st.sampled_from(_ENDS)
_TEXTS = st.lists(st.tuples(_HEADS, _MIDDLES, _TAILS).map("".join), max_size=12)


def _same(reader: Any, form: DeltaForm, texts: list[str]) -> int:
    """Each text read in turn gives what ``form.payload`` gives; how many came as tuples."""
    tuples = 0
    for text in texts:
        got = reader(text)
        match = form.payload.fullmatch(text)
        if match is None:
            assert got is None
        elif type(got) is tuple:
            assert got[0] == text
            assert got[1:] == form.read(match)
            tuples += 1
        else:
            assert type(got) is re.Match
            assert got.span() == match.span() and form.read(got) == form.read(match)
    return tuples


@settings(max_examples=4 * settings.default.max_examples)
@given(_TEXTS)
def test_bedrock_s_payload_reader_gives_what_its_expression_gives(texts: list[str]) -> None:
    _same(DELTA_FORM.payload_reader(), DELTA_FORM, texts)


_FRAGMENTS = st.one_of(
    st.text(max_size=8), st.lists(st.sampled_from(_PARTS), max_size=4).map("".join)
)


@settings(max_examples=2 * settings.default.max_examples)
@given(_TEXTS, st.lists(_FRAGMENTS, min_size=1, max_size=8))
def test_a_run_of_one_block_s_fragments_is_read_as_tuples(
    texts: list[str], fragments: list[str]
) -> None:
    """Fragments into one block, each written as Bedrock writes them, after anything: those
    after one the expression matched (one with no surrogate) that hold no ``\\u`` escape
    or surrogate are tuples."""
    head = '{"contentBlockIndex":3,"delta":{"toolUse":{"input":'
    run = [head + json.dumps(f, ensure_ascii=False) + "}}}" for f in fragments]
    reader = DELTA_FORM.payload_reader()
    _same(reader, DELTA_FORM, texts)
    learned, quick = False, 0
    for fragment in fragments:
        plain = re.search("[\ud800-\udfff]", fragment) is None
        if learned and plain and "\\u" not in json.dumps(fragment, ensure_ascii=False):
            quick += 1
        learned = learned or plain
    assert _same(reader, DELTA_FORM, run) == quick


def test_the_benchmark_s_deltas_are_read_as_tuples() -> None:
    from benchmarks.bench_bedrock import build, frames

    reader = DELTA_FORM.payload_reader()
    names, payloads = frames(build("tool", 3000))
    deltas = [p for n, p in zip(names, payloads, strict=True) if n == "contentBlockDelta"]
    made = [reader(p.decode()) for p in deltas]
    assert sum(type(x) is tuple for x in made) > 0.95 * len(made)


def test_a_form_whose_branches_a_prefix_does_not_tell_apart_only_matches() -> None:
    """A ``OneOf`` whose branches begin alike (so the text after a field could tell one
    from another) and a Text field with another field after it are read by the
    expression alone: never a tuple, however alike the texts begin."""
    alike = DeltaForm({"a": OneOf({"t": Text("x")}, {"t": Text("y"), "n": Index("n")})})
    texts = ['{"a":{"t":"p"}}', '{"a":{"t":"q"}}', '{"a":{"t":"q","n":1}}', '{"a":{"t":"r"}}']
    assert _same(alike.payload_reader(), alike, texts) == 0
    followed = DeltaForm({"t": Text("x"), "n": Index("n"), OTHERS: SCALAR})
    texts = ['{"t":"a","n":1}', '{"t":"a","n":1}', '{"t":"b","n":2}', '{"t":"b\\"","n":2}']
    assert _same(followed.payload_reader(), followed, texts) == 0
    last = DeltaForm({"n": Index("n"), "t": Text("x"), OTHERS: SCALAR})
    texts = ['{"n":1,"t":"a"}', '{"n":1,"t":"b\\"c","z":2}', '{"n":1,"t":"b"}x', '{"n":2,"t":"a"}']
    assert _same(last.payload_reader(), last, texts) == 1


def test_a_piece_s_texts_are_read_in_place_and_the_others_left() -> None:
    """``payloads_reader``: a piece's items, its texts each made its match or tuple in
    place, the places of those the form does not match returned, anything else left."""
    read_all = DELTA_FORM.payloads_reader()
    head = '{"contentBlockIndex":1,"delta":{"toolUse":{"input":'
    items: list[Any] = [head + '"a"}}}', {"x": 1}, head + '"b"}}}', head + "1}}}", None]
    kept = items[1]
    assert read_all(items) == [3]
    assert type(items[0]) is re.Match and items[1] is kept and items[4] is None
    assert items[2] == (head + '"b"}}}', 1, None, "b", None)
    assert items[3] == head + "1}}}"
