"""A whole call's arguments keep the text Ollama wrote when ``read_written`` proves it is
what the general path writes (compact, each value as the encoder writes it): the events
read fused are the general path's for any arguments, hostile ones among them (escapes,
floats, a negative zero, a repeated key, nesting, a number Python will not read)."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.adapters import ollama
from toolwire.errors import ToolwireError
from toolwire.protocol._kept_json import read_written
from toolwire.protocol.arguments import dumps_compact

_HEAD = '{"model":"m","created_at":"2026-11-30T12:00:00Z","message":{"role":"assistant",'
_ARGS = st.sampled_from(
    [
        '{"city":"City 0","days":[1,2,3],"units":"celsius"}',
        "{}",
        '{"a":"é🙂"}',
        '{"a":"x\\"y"}',
        '{"a":"\\u00e9"}',
        '{"a":1.5}',
        '{"a":1.0}',
        '{"a":-0}',
        '{"a":-0.0}',
        '{"a":-05}',
        '{"a":1e3}',
        '{"a":1,"a":2}',
        '{"a":{"b":1}}',
        '{"a":"{"}',
        '{"a":[{"b":1}]}',
        '{"a":' + "9" * 700 + "}",
        '{"a":' + "9" * 5000 + "}",
        '{"a":true,"b":null,"c":false}',
        '{"a":"x","b":"y"}',
        "[1]",
        '"text"',
        "null",
    ]
)


def _line(n: int, args: str) -> str:
    call = f'{{"id":"call_{n}","function":{{"index":{n},"name":"f","arguments":{args}}}}}'
    return f'{_HEAD}"content":"","tool_calls":[{call}]}},"done":false}}'


def _body(arguments: list[str]) -> bytes:
    first = f'{_HEAD}"content":"hi"}},"done":false}}'
    last = '{"model":"m","created_at":"x","message":{"role":"assistant","content":""},'
    last += '"done":true,"done_reason":"stop"}'
    lines = [first, *(_line(n, a) for n, a in enumerate(arguments)), last]
    return "".join(line + "\n" for line in lines).encode("utf-8")


def _outcome(body: bytes, fused: bool) -> Any:
    decoder = ollama.Decoder()
    try:
        if fused:
            events = list(decoder.events(ollama.FRAMING.read(body)))
        else:
            events = []
            for chunk in ollama.FRAMING.read(body):
                events += decoder.feed(dict(chunk))
            events += decoder.close()
    except ToolwireError as exc:
        return f"{type(exc).__name__}: " + re.sub(r"line [0-9]+", "line n", str(exc))
    return [e.model_dump_json(by_alias=True) for e in events]


@settings(max_examples=150, deadline=None)
@given(st.lists(_ARGS, min_size=1, max_size=5))
def test_whole_calls_read_fused_are_the_general_paths(arguments: list[str]) -> None:
    body = _body(arguments)
    assert _outcome(body, fused=True) == _outcome(body, fused=False)


def test_compact_arguments_are_kept_and_others_written_again() -> None:
    events = _outcome(_body(['{"a":1}', '{"a":1.0}', '{"a":1,"a":2}']), fused=True)
    assert not isinstance(events, str), events
    deltas = [json.loads(e)["delta"] for e in events if '"TOOL_CALL_ARGS"' in e]
    assert deltas == ['{"a":1}', '{"a":1.0}', '{"a":2}']


@settings(max_examples=300)
@given(
    st.dictionaries(
        st.text(max_size=4),
        st.one_of(st.integers(), st.text(max_size=4), st.booleans(), st.none()),
        max_size=4,
    )
)
def test_a_kept_text_is_what_the_general_path_writes(value: dict[str, Any]) -> None:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    read, kept = read_written(text)
    assert read == value
    if kept:
        assert dumps_compact(read) == text
