"""One rule for whole doubles (protobuf ``Struct`` SDKs hold every number as a double)."""

from __future__ import annotations

import json

from toolwire.adapters import dialogflow, gemini
from toolwire.adapters.gemini.partial_args import ArgsWriter
from toolwire.protocol.arguments import whole_numbers


def test_whole_doubles_become_integers_only_while_a_double_is_exact() -> None:
    # 2**53 is the last integer before doubles skip odd numbers (9007199254740993 has no double)
    assert float(2**53 + 1) == float(2**53)
    value = {"n": 3.0, "big": 9007199254740992.0, "past": 1e300, "half": 2.5, "t": True}
    assert whole_numbers(value) == {"n": 3, "big": 2**53, "past": 1e300, "half": 2.5, "t": True}
    assert type(whole_numbers(1e300)) is float
    assert json.dumps(whole_numbers([1e300, -0.0])) == "[1e+300, 0]"
    assert list(whole_numbers({"b": 1.0, "a": 2.0}, sort=True)) == ["a", "b"]


def test_gemini_and_dialogflow_follow_the_same_rule() -> None:
    args = {"count": 3.0, "huge": 1e300}
    assert gemini.wire.json_text(args, "args") == '{"count":3,"huge":1e+300}'
    assert dialogflow.wire.whole_doubles(args) == {"count": 3, "huge": 1e300}


def test_partial_args_number_text_follows_it_too() -> None:
    w = ArgsWriter()
    text = w.piece({"jsonPath": "$.n", "numberValue": 4.0}, "p0")
    text += w.piece({"jsonPath": "$.m", "numberValue": 1e300}, "p1")
    text += w.finish()
    assert json.loads(text) == {"n": 4, "m": 1e300}
    assert '"n":4' in text and "1e+300" in text
