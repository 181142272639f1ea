"""Vertex ``partialArgs`` -> argument text: any arguments object, any way of cutting it up.

The oracle is the spec of the issue: the deltas concatenate to exactly the compact JSON text of
the final arguments (``json.dumps`` here, with the integer form for integral numbers), and
each delta only appends.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.adapters import gemini
from toolwire.adapters.gemini.partial_args import ArgsWriter, parse_json_path
from toolwire.errors import VendorDataError

# member names of any text (not only identifiers): spaces, dots, brackets, quotes and
# backslashes need the bracket form of a path, ``$['a b']`` (RFC 9535, quotes escaped)
keys = st.one_of(
    # identifiers drawn directly (a filter on random text rejected most draws: Hypothesis's
    # filter_too_much health check failed the test now and then)
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True),
    st.text(
        st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from(list(".[]'\\\" $")),
        min_size=1,
        max_size=6,
    ),
)
leaves = st.one_of(
    st.text(max_size=12),
    st.integers(-(2**40), 2**40),
    # non-integral floats made, not filtered: an integral draw moves by a half (exact in
    # float32 below 2**22)
    st.floats(-(2**22), 2**22, allow_nan=False, width=32).map(
        lambda f: f + 0.5 if float(f).is_integer() else f
    ),
    st.booleans(),
    st.none(),
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3),
        st.dictionaries(keys, inner, min_size=1, max_size=3),
    ),
    max_leaves=12,
)
objects = st.dictionaries(keys, values, min_size=0, max_size=4)


def _name(s: str) -> str:
    if s.isidentifier():
        return f".{s}"
    return "['" + s.replace("\\", "\\\\").replace("'", "\\'") + "']"


def _path(segs: list[Any]) -> str:
    return "$" + "".join(f"[{s}]" if isinstance(s, int) else _name(s) for s in segs)


def _pieces(value: Any, segs: list[Any], cuts: st.DataObject) -> list[dict[str, Any]]:
    """The partialArgs Vertex would send for ``value`` at ``segs`` (strings cut at random)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _pieces(v, [*segs, k], cuts)]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _pieces(v, [*segs, i], cuts)]
    path = _path(segs)
    if isinstance(value, str):
        n = cuts.draw(st.integers(0, min(3, len(value))))
        points = sorted(cuts.draw(st.lists(st.integers(0, len(value)), min_size=n, max_size=n)))
        bits = [value[a:b] for a, b in zip([0, *points], [*points, len(value)], strict=True)]
        out = [{"jsonPath": path, "stringValue": b, "willContinue": True} for b in bits]
        out[-1] = {"jsonPath": path, "stringValue": bits[-1]}
        return out
    if isinstance(value, bool):
        return [{"jsonPath": path, "boolValue": value}]
    if value is None:
        return [{"jsonPath": path, "nullValue": "NULL_VALUE"}]
    return [{"jsonPath": path, "numberValue": float(value) if isinstance(value, int) else value}]


def _no_empty_containers(v: Any) -> bool:
    if isinstance(v, dict):
        return bool(v) and all(_no_empty_containers(x) for x in v.values())
    if isinstance(v, list):
        return bool(v) and all(_no_empty_containers(x) for x in v)
    return True


@given(objects.filter(lambda o: all(_no_empty_containers(v) for v in o.values())), st.data())
def test_deltas_concatenate_to_the_compact_json_of_the_arguments(
    args: dict[str, Any], data: st.DataObject
) -> None:
    pieces = _pieces(args, [], data)
    per_chunk = data.draw(st.integers(1, 4))
    chunks: list[dict[str, Any]] = [
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": {"id": "c", "name": "f", "willContinue": True}}],
                    }
                }
            ],
            "responseId": "r",
        }
    ]
    for i in range(0, len(pieces), per_chunk):
        chunks.append(
            {
                "candidates": [
                    {
                        "content": {
                            "role": "model",
                            "parts": [
                                {
                                    "functionCall": {
                                        "partialArgs": pieces[i : i + per_chunk],
                                        "willContinue": True,
                                    }
                                }
                            ],
                        }
                    }
                ],
                "responseId": "r",
            }
        )
    chunks.append(
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"functionCall": {}}]},
                    "finishReason": "STOP",
                }
            ],
            "responseId": "r",
        }
    )
    events = list(gemini.decode_stream(chunks))
    deltas = [e.delta for e in events if e.type.value == "TOOL_CALL_ARGS"]
    expected = json.dumps(args, separators=(",", ":"), ensure_ascii=False)
    assert "".join(deltas) == expected
    assert json.loads("".join(deltas)) == args


def test_json_paths_in_every_spelling() -> None:
    assert parse_json_path("$.a.b[0]['c d'][\"e\"]", "w") == ["a", "b", 0, "c d", "e"]
    for bad in ("a.b", "$..a", "$.a[x]", "$['a'"):
        with pytest.raises(VendorDataError, match="jsonPath"):
            parse_json_path(bad, "w")


def test_a_piece_that_goes_back_is_refused_not_reordered() -> None:
    w = ArgsWriter()
    w.piece({"jsonPath": "$.a.x", "numberValue": 1}, "p0")
    w.piece({"jsonPath": "$.b", "numberValue": 2}, "p1")
    with pytest.raises(VendorDataError, match="revisited"):
        w.piece({"jsonPath": "$.a.y", "numberValue": 3}, "p2")
    w2 = ArgsWriter()
    with pytest.raises(VendorDataError, match="out of order"):
        w2.piece({"jsonPath": "$.list[1]", "numberValue": 1}, "p0")
