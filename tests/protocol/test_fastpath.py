"""The fused reading of a vendor's SSE bytes (``protocol._fastpath``) against the general
one: a decoder handed toolwire's own reader (an ``SSEChunks``) must give exactly what it
gives for the same chunk dicts handed over as a list (no fusing): the same events, the
same warnings, the same error, whatever the texts hold and however the body is cut. The
expressions must admit JSON only, and the common deltas must in fact go the fused way."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from outcomes import outcome as _outcome

from toolwire import adapters
from toolwire.adapters.anthropic.wire import DELTA_FORM as ANTHROPIC_DELTA
from toolwire.adapters.openai_chat.wire import DELTA_FORM as CHAT_DELTA
from toolwire.protocol._fastpath import DeltaForm, Index, SSEChunks, Text, Whole, scan_string
from toolwire.protocol.limits import configure, limits
from toolwire.protocol.sse import SSEParser

#: one string field: what a form's :class:`Text` admits, and what its reader makes of it
_ONE_TEXT = DeltaForm({"s": Text("s")})


def _quoted(written: str) -> re.Match[str] | None:
    return _ONE_TEXT.pattern.fullmatch(f'data: {{"s":{written}}}\n\n')


# any code point, lone surrogates included (a body with one is handed in as ``str``)
_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=12)


@given(_TEXT, st.booleans())
def test_a_json_string_the_expression_admits_reads_back_as_the_string(
    text: str, ascii_only: bool
) -> None:
    written = json.dumps(text, ensure_ascii=ascii_only)
    match = _quoted(written)
    has_surrogate = any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    if has_surrogate:
        assert match is None  # left to the general path, which names it
        return
    if ascii_only and any(ord(c) > 0xFFFF for c in text):
        assert match is None  # written as a pair of escapes: the general path's too
        return
    assert match is not None, written
    assert _ONE_TEXT.read(match) == (text,)


@given(st.text(max_size=16))
def test_whatever_the_expression_admits_is_one_json_string_with_no_surrogate(raw: str) -> None:
    written = f'"{raw}"'
    match = _quoted(written)
    if match is None:
        return
    value = json.loads(written)
    assert type(value) is str
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    assert _ONE_TEXT.read(match) == (value,)
    assert scan_string(written, 1)[0] == value


# -- streams


def _compact(value: Any, ascii_only: bool) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only)


def _anthropic_body(deltas: list[tuple[str, int, str, str, str]], end: bool) -> str:
    """A message with a text block (0) and a tool_use block (1); each delta (how it is
    written, block index, delta type, field, text) goes between their starts and stops."""
    out = [
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [], "stop_reason": None, "usage": {"input_tokens": 3, "output_tokens": 1},
        }}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {
            "type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}}),
    ]  # fmt: skip
    texts = [f"event: {name}\ndata: {_compact(v, True)}\n\n" for name, v in out]
    for style, index, dtype, fieldname, text in deltas:
        payload = {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": dtype, fieldname: text},
        }
        data = (
            json.dumps(payload)  # spaces after the separators: the general path's
            if style == "spaced"
            else _compact(payload, style == "ascii")
        )
        texts.append(f"event: content_block_delta\ndata: {data}\n\n")
    if end:
        for name, v in [
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("content_block_stop", {"type": "content_block_stop", "index": 1}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                               "usage": {"output_tokens": 9}}),
            ("message_stop", {"type": "message_stop"}),
        ]:  # fmt: skip
            texts.append(f"event: {name}\ndata: {_compact(v, True)}\n\n")
    return "".join(texts)


_ANTHROPIC_DELTA = st.tuples(
    st.sampled_from(["compact", "ascii", "spaced"]),
    st.sampled_from([0, 1, 1, 7]),  # (7: no such block)
    st.sampled_from(["text_delta", "input_json_delta", "thinking_delta"]),
    st.sampled_from(["text", "partial_json", "partial_json", "thinking"]),
    _TEXT,
)


def _chat_body(chunks: list[tuple[str, dict[str, Any]]], end: bool) -> str:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-x", "system_fingerprint": None}  # fmt: skip

    def chunk(choice: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {**head, "choices": [choice], "usage": None, **extra}

    first = [
        chunk({"index": 0, "delta": {"role": "assistant", "content": ""},
               "logprobs": None, "finish_reason": None}),
        chunk({"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1",
               "type": "function", "function": {"name": "f", "arguments": ""}}]},
               "logprobs": None, "finish_reason": None}),
    ]  # fmt: skip
    texts = [f"data: {_compact(c, True)}\n\n" for c in first]
    for style, value in chunks:
        data = json.dumps(value) if style == "spaced" else _compact(value, style == "ascii")
        texts.append(f"data: {data}\n\n")
    if end:
        last = chunk({"index": 0, "delta": {}, "logprobs": None, "finish_reason": "tool_calls"})
        texts.append(f"data: {_compact(last, True)}\n\ndata: [DONE]\n\n")
    return "".join(texts)


@st.composite
def _chat_chunk(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    text = draw(_TEXT)
    delta = draw(
        st.sampled_from(
            [
                {"content": text},
                {"tool_calls": [{"index": 0, "function": {"arguments": text}}]},
                {"tool_calls": [{"index": 3, "function": {"arguments": text}}]},  # not started
                {"tool_calls": [{"index": 0, "type": "function", "function": {"arguments": text}}]},
                {"content": text, "refusal": None},
            ]
        )
    )
    choice: dict[str, Any] = {"index": draw(st.sampled_from([0, 0, 0, 2])), "delta": delta}
    if draw(st.booleans()):
        choice["logprobs"] = None
    choice["finish_reason"] = None
    value: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-x",
        "choices": [choice],
    }
    extra = draw(st.sampled_from(["none", "usage-null", "obfuscation", "usage", "error-null"]))
    if extra == "usage-null":
        value["usage"] = None
    elif extra == "obfuscation":
        value["usage"] = None
        value["obfuscation"] = "aB3"
    elif extra == "usage":
        value["usage"] = {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
    elif extra == "error-null":
        value["error"] = None
    return draw(st.sampled_from(["compact", "ascii", "spaced"])), value


def _pieces(body: str, cuts: list[int], as_bytes: bool) -> list[Any]:
    data: Any = body.encode("utf-8") if as_bytes else body
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in pairwise(points)]


def _both(vendor: str, pieces: list[Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    adapter = adapters.get(vendor)

    def fused() -> Iterator[Any]:
        chunks = adapter.sse_chunks(pieces)
        assert type(chunks) is SSEChunks
        return adapter.decode_stream(chunks)

    def plain() -> Iterator[Any]:
        # the same dicts, as lazily, read without fusing (its iterator is no SSEChunks)
        chunks = iter(adapter.sse_chunks(pieces))
        assert type(chunks) is not SSEChunks
        return adapter.decode_stream(chunks)

    return _outcome(fused), _outcome(plain)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_ANTHROPIC_DELTA, max_size=8),
    st.booleans(),
    st.lists(st.integers(min_value=0), max_size=6),
    st.booleans(),
)
def test_anthropic_fused_gives_what_the_general_path_gives(
    deltas: list[Any], end: bool, cuts: list[int], as_bytes: bool
) -> None:
    body = _anthropic_body(deltas, end)
    if as_bytes and any(0xD800 <= ord(c) <= 0xDFFF for c in body):
        as_bytes = False  # (no UTF-8 for a lone surrogate: handed in as text)
    fused, plain = _both("anthropic", _pieces(body, cuts, as_bytes))
    assert fused == plain


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_chat_chunk(), max_size=8),
    st.booleans(),
    st.lists(st.integers(min_value=0), max_size=6),
    st.booleans(),
)
def test_openai_chat_fused_gives_what_the_general_path_gives(
    chunks: list[Any], end: bool, cuts: list[int], as_bytes: bool
) -> None:
    body = _chat_body(chunks, end)
    if as_bytes and any(0xD800 <= ord(c) <= 0xDFFF for c in body):
        as_bytes = False
    fused, plain = _both("openai_chat", _pieces(body, cuts, as_bytes))
    assert fused == plain


@pytest.mark.parametrize(
    "vendor", ["anthropic", "openai_chat", "openai_responses", "cohere", "mistral"]
)
def test_the_common_deltas_go_the_fused_way(vendor: str, monkeypatch: Any) -> None:
    """The vendor's own shapes (the benchmark's recorded-shape streams) match its delta
    form: else the fused reading would silently be the general one."""
    from benchmarks.suite import VENDORS

    body = VENDORS[vendor].build("tool", 200)
    seen = [0]
    feed_items = SSEParser.feed_items

    def counting(parser: SSEParser, piece: Any, fast: Any) -> list[Any]:
        items = feed_items(parser, piece, fast)
        seen[0] += sum(type(item) is re.Match for item in items)
        return items

    monkeypatch.setattr(SSEParser, "feed_items", counting)
    adapter = adapters.get(vendor)
    events = list(adapter.decode_stream(adapter.sse_chunks(body)))
    # (text and argument deltas: Responses' reasoning deltas go the general way)
    kinds = ("TextMessageContentEvent", "ToolCallArgsEvent")
    deltas = sum(type(ev).__name__ in kinds for ev in events)
    assert deltas > 100
    assert seen[0] >= deltas  # each delta event came from a match


@pytest.mark.parametrize(
    ("vendor", "pattern", "sample"),
    [
        ("anthropic", ANTHROPIC_DELTA, 'event: content_block_delta\ndata: {"type":'
         '"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\n\n'),
        ("openai_chat", CHAT_DELTA, 'data: {"id":"c","choices":[{"index":0,"delta":'
         '{"content":"hi"},"finish_reason":null}],"usage":null,"obfuscation":"x"}\n\n'),
    ],
)  # fmt: skip
def test_a_matched_event_is_one_json_object(vendor: str, pattern: Any, sample: str) -> None:
    found = pattern.pattern.fullmatch(sample)
    assert found is not None, vendor
    assert type(json.loads(found.group("data"))) is dict


@pytest.mark.parametrize(
    "vendor", ["anthropic", "openai_chat", "gemini", "cohere", "mistral", "ollama"]
)
def test_a_low_depth_cap_is_named_the_same_fused_or_not(vendor: str) -> None:
    from benchmarks.suite import VENDORS

    pieces = [VENDORS[vendor].build("tool", 50)]
    previous = limits().max_json_depth
    configure(max_json_depth=2)
    try:
        fused, plain = _both(vendor, pieces)
    finally:
        configure(max_json_depth=previous)
    assert fused == plain
    assert fused[0] == "error" and "nested deeper" in fused[2]


@pytest.mark.parametrize(
    "vendor", ["anthropic", "openai_chat", "gemini", "cohere", "mistral", "ollama"]
)
def test_chunks_taken_before_and_left_after_a_decoder_are_dicts(vendor: str) -> None:
    """A caller may take chunks from the reader, hand the rest to a decoder, and take what
    a decoder that stopped early left: every one a dict, none lost or repeated."""
    from benchmarks.suite import VENDORS

    adapter = adapters.get(vendor)
    body = VENDORS[vendor].build("tool", 3000)
    split = [body[i : i + (1 << 16)] for i in range(0, len(body), 1 << 16)]  # several pieces
    assert len(split) > 2
    expected = list(adapter.sse_chunks(split))
    reader = adapter.sse_chunks(split)
    first = [next(reader) for _ in range(3)]
    decoder = adapter.Decoder()
    for chunk in first:
        decoder.feed(chunk)
    events = decoder.events(reader)
    taken = [next(events) for _ in range(1500)]
    assert len(taken) == 1500
    events.close()  # the decoder stops within a piece read fused
    rest = list(reader)
    assert all(type(c) is not re.Match and isinstance(c, dict) for c in rest)
    read = len(expected) - len(rest)
    assert rest == expected[read:]
    assert first == expected[:3]


def _responses_body(deltas: list[tuple[str, str, int, str]], end: bool) -> str:
    """A message item (0) and a function call item (1); each delta (how it is written, its
    kind, output index, text) goes between their additions and ends."""
    head = [
        {"type": "response.created", "sequence_number": 0, "response": {
            "id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-x",
            "output": []}},
        {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
         "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}},
        {"type": "response.output_item.added", "sequence_number": 2, "output_index": 1,
         "item": {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f",
                  "arguments": ""}},
    ]  # fmt: skip
    texts = [f"event: {v['type']}\ndata: {_compact(v, True)}\n\n" for v in head]
    for n, (style, kind, index, text) in enumerate(deltas, start=3):
        payload: dict[str, Any] = {"type": f"response.{kind}.delta", "sequence_number": n,
                                   "item_id": "x", "output_index": index}  # fmt: skip
        if kind == "output_text":
            payload["content_index"] = 0
        payload["delta"] = text
        if style != "bare":
            payload["logprobs"] = []
            payload["obfuscation"] = "aB3"
        data = json.dumps(payload) if style == "spaced" else _compact(payload, style == "ascii")
        texts.append(f"event: {payload['type']}\ndata: {data}\n\n")
    if end:
        done = {"type": "response.completed", "sequence_number": 99, "response": {
            "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-x",
            "output": [],
            "usage": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}}}  # fmt: skip
        texts.append(f"event: response.completed\ndata: {_compact(done, True)}\n\n")
        late = {"type": "response.output_text.delta", "sequence_number": 100,
                "output_index": 0, "delta": "late"}  # fmt: skip
        texts.append(f"event: {late['type']}\ndata: {_compact(late, True)}\n\n")
    return "".join(texts)


_RESPONSES_DELTA = st.tuples(
    st.sampled_from(["compact", "ascii", "spaced", "bare"]),
    st.sampled_from(["output_text", "function_call_arguments"]),
    st.sampled_from([0, 1, 1, 4]),  # (4: no such item)
    _TEXT,
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_RESPONSES_DELTA, max_size=8),
    st.booleans(),
    st.lists(st.integers(min_value=0), max_size=6),
    st.booleans(),
)
def test_openai_responses_fused_gives_what_the_general_path_gives(
    deltas: list[Any], end: bool, cuts: list[int], as_bytes: bool
) -> None:
    body = _responses_body(deltas, end)
    if as_bytes and any(0xD800 <= ord(c) <= 0xDFFF for c in body):
        as_bytes = False
    fused, plain = _both("openai_responses", _pieces(body, cuts, as_bytes))
    assert fused == plain


@pytest.mark.parametrize("shape", ["tool", "text", "parallel"])
@pytest.mark.parametrize(
    "vendor",
    ["anthropic", "openai_chat", "openai_responses", "gemini", "cohere", "mistral", "ollama"],
)
def test_the_benchmark_streams_read_the_same_fused(vendor: str, shape: str) -> None:
    from benchmarks.suite import VENDORS

    fused, plain = _both(vendor, [VENDORS[vendor].build(shape, 400)])
    assert fused[0] == "ok"
    assert fused == plain


# -- Cohere: typed events after an ``event:`` line, deltas by content or call index


def _cohere_body(
    deltas: list[tuple[str, str, int, str, bool, bool]], end: bool, named: bool = True
) -> str:
    """A message with a text content item (0), a thinking one (1) and a call (0) open (or,
    unless ``named``, a message without an id and nothing open); each event (how it is
    written, its kind, index, text, ``logprobs: null`` or not, a flag: a content delta's
    field ``thinking`` or ``text``, a call start's id or none) goes after them; after the
    end, one more delta (read as material after it)."""
    start: dict[str, Any] = {"id": "m-1"} if named else {}
    head = [
        {**start, "type": "message-start", "delta": {"message": {
            "role": "assistant", "content": [], "tool_plan": "", "tool_calls": [],
            "citations": []}}},
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will"}}},
        {"type": "content-start", "index": 0, "delta": {"message": {
            "content": {"type": "text", "text": ""}}}},
        {"type": "content-start", "index": 1, "delta": {"message": {
            "content": {"type": "thinking", "thinking": ""}}}},
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {
            "id": "f_1", "type": "function", "function": {"name": "f", "arguments": ""}}}}},
    ]  # fmt: skip
    texts = [
        f"event: {v['type']}\ndata: {_compact(v, True)}\n\n" for v in head[: 5 if named else 1]
    ]
    for style, kind, index, text, logprobs, flag in deltas:
        payload: dict[str, Any] = {"type": kind}
        if kind != "tool-plan-delta":
            payload["index"] = index
        if kind == "tool-call-delta":
            payload["delta"] = {"message": {"tool_calls": {"function": {"arguments": text}}}}
        elif kind == "tool-call-start":
            call = {"id": f"f_{index}" if flag else "", "type": "function",
                    "function": {"name": text, "arguments": ""}}  # fmt: skip
            payload["delta"] = {"message": {"tool_calls": call}}
        elif kind == "tool-plan-delta":
            payload["delta"] = {"message": {"tool_plan": text}}
        elif kind == "content-delta":
            field = "thinking" if flag else "text"
            payload["delta"] = {"message": {"content": {field: text}}}
        if logprobs:
            payload["logprobs"] = None
        data = json.dumps(payload) if style == "spaced" else _compact(payload, style == "ascii")
        name = "" if style == "bare" else f"event: {kind}\n"
        texts.append(f"{name}data: {data}\n\n")
    if end:
        usage = {"billed_units": {"input_tokens": 1, "output_tokens": 2},
                 "tokens": {"input_tokens": 3, "output_tokens": 4}}  # fmt: skip
        for v in [
            {"type": "content-end", "index": 1},
            {"type": "tool-call-end", "index": 0},
            {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": usage}},
            {"type": "content-delta", "index": 0, "delta": {"message": {
                "content": {"text": "late"}}}},
        ]:  # fmt: skip
            texts.append(f"event: {v['type']}\ndata: {_compact(v, True)}\n\n")
    return "".join(texts)


_COHERE_DELTA = st.tuples(
    st.sampled_from(["compact", "ascii", "spaced", "bare"]),
    st.sampled_from(
        [
            *["content-delta", "content-delta", "tool-call-delta", "tool-plan-delta"],
            *["tool-call-start", "tool-call-end"],
        ]
    ),
    st.sampled_from([0, 0, 1, 1, 2]),  # (2: no such item)
    _TEXT,
    st.booleans(),
    st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_COHERE_DELTA, max_size=8),
    st.booleans(),
    st.lists(st.integers(min_value=0), max_size=6),
    st.booleans(),
    st.booleans(),
)
def test_cohere_fused_gives_what_the_general_path_gives(
    deltas: list[Any], end: bool, cuts: list[int], as_bytes: bool, named: bool
) -> None:
    body = _cohere_body(deltas, end, named)
    if as_bytes and any(0xD800 <= ord(c) <= 0xDFFF for c in body):
        as_bytes = False
    fused, plain = _both("cohere", _pieces(body, cuts, as_bytes))
    assert fused == plain


# -- Mistral: Chat-Completions-like chunks, whole calls, Magistral's thinking


def _mistral_chunk(delta: dict[str, Any], n: int, **extra: Any) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": extra.pop("choice", 0), "delta": delta}
    choice["finish_reason"] = extra.pop("finish", None)
    return {"id": "cmpl-1", "object": "chat.completion.chunk", "created": n,
            "model": "mistral-x", "choices": [choice], **extra}  # fmt: skip


_MISTRAL_ID = st.sampled_from(
    ["A1b2C3d4E", "A1b2C3d4E", "A1b2C3d4E", "Z9y8X7w6V", "", "null", "\u00e9t\u00e9"]
)
#: a call as Mistral sends it (an id repeated across chunks: a continuation), and a few
#: other shapes (no arguments, no index, another member, a fragment without an id, ...)
_MISTRAL_CALL = st.one_of(
    *[
        st.builds(
            lambda i, n, a, x: {"id": i, "function": {"name": n, "arguments": a}, "index": x},
            _MISTRAL_ID,
            st.sampled_from(["get_weather", "get_weather", "get_time", ""]),
            _TEXT,
            st.sampled_from([0, 1, 2]),
        )
    ]
    * 4,
    st.builds(
        lambda i, a: {"id": i, "function": {"name": "g", "arguments": a}, "index": 0},
        _MISTRAL_ID,
        st.dictionaries(_TEXT, st.none() | st.integers() | _TEXT, max_size=2),
    ),
    st.sampled_from(
        [
            {"id": "Q1w2E3r4T", "function": {"name": "g"}},  # no arguments, no index
            {"id": "Q1w2E3r4T", "type": "function", "function": {"name": "g", "arguments": "{}"}},
            {"id": "P0o9I8u7Y", "function": {"name": "g", "arguments": None}, "index": 1.5},
            {"id": "P0o9I8u7Y", "function": {"name": "g", "arguments": ""}, "index": 1e400},
            {"function": {"arguments": "more"}, "index": 0},  # a continuation
            {"id": "P0o9I8u7Y", "function": None},
        ]
    ),
)


@st.composite
def _mistral_delta(draw: st.DrawFn) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """How it is written, a delta, and what else the chunk holds."""
    text = draw(_TEXT)
    delta = draw(
        st.sampled_from(
            [
                {"content": text},
                {"content": [{"type": "text", "text": text}]},
                {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": text}]}]},
                {"content": text, "role": "assistant"},
                {"tool_calls": []},
            ]
        )
        | st.builds(
            lambda calls: {"tool_calls": calls}, st.lists(_MISTRAL_CALL, min_size=1, max_size=3)
        )
        | st.builds(lambda call: {"tool_calls": [call]}, _MISTRAL_CALL)
    )
    extra = draw(
        st.sampled_from(
            [{}] * 6 + [{"usage": None}, {"choice": 1}, {"finish": "stop"}, {"object": "error"}]
        )
    )
    return draw(st.sampled_from(["compact", "ascii", "spaced"])), delta, extra


def _mistral_body(chunks: list[tuple[str, dict[str, Any], dict[str, Any]]], end: bool) -> str:
    first = _mistral_chunk({"role": "assistant", "content": ""}, 0)
    texts = [f"data: {_compact(first, True)}\n\n"]
    for n, (style, delta, extra) in enumerate(chunks, start=1):
        value = _mistral_chunk(delta, n, **extra)
        data = json.dumps(value) if style == "spaced" else _compact(value, style == "ascii")
        texts.append(f"data: {data}\n\n")
    if end:
        usage = {"prompt_tokens": 1, "total_tokens": 3, "completion_tokens": 2}
        last = _mistral_chunk({"content": ""}, 99, finish="tool_calls", usage=usage)
        texts.append(f"data: {_compact(last, True)}\n\ndata: [DONE]\n\n")
    return "".join(texts)


def _call_of(call_id: str, arguments: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "function": {"name": "f", "arguments": arguments},
                            "index": 0}]}  # fmt: skip


_THOUGHT = {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hm"}]}]}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_mistral_delta(), max_size=8),
    st.booleans(),
    st.lists(st.integers(min_value=0), max_size=6),
    st.booleans(),
)
# a call's id again in a later chunk (its arguments continue it), and thinking a call ends
@example([("compact", _call_of("A1b2C3d4E", "x"), {}), ("compact", _call_of("A1b2C3d4E", "y"), {})],
         True, [], False)  # fmt: skip
@example([("compact", _THOUGHT, {}), ("compact", _THOUGHT, {}),
          ("compact", _call_of("A1b2C3d4E", "x"), {})], True, [], False)  # fmt: skip
def test_mistral_fused_gives_what_the_general_path_gives(
    chunks: list[Any], end: bool, cuts: list[int], as_bytes: bool
) -> None:
    body = _mistral_body(chunks, end)
    if as_bytes and any(0xD800 <= ord(c) <= 0xDFFF for c in body):
        as_bytes = False
    fused, plain = _both("mistral", _pieces(body, cuts, as_bytes))
    assert fused == plain


# -- a chunk written another way: valid JSON the delta forms do not take as it stands


def _rewritten(value: Any, style: str, rng: random.Random) -> str:
    """``value`` as JSON text written another way than the vendor writes it: its members
    ``reversed`` or ``shuffled``, whitespace around every token (``spaced``), and each
    object's last member also written first with another value (``duplicated``: JSON's
    last one wins, so the value read is the same), or each scalar member written again
    last with another value, ``type`` apart (``overridden``: the value read is that one)."""
    sep, colon, ends = (" ,\t", " : ", ("{ ", "\t}")) if "spaced" in style else (",", ":", "{}")
    if isinstance(value, dict):
        pairs = [(k, _rewritten(v, style, rng)) for k, v in value.items()]
        if "reversed" in style:
            pairs.reverse()
        if "shuffled" in style:
            rng.shuffle(pairs)
        if "duplicated" in style and pairs:
            pairs.insert(0, (pairs[-1][0], "0"))
        if "overridden" in style:
            # (not the event's type: a stream of unknown events ends as truncated, whatever
            # its deltas read)
            again = [(k, _other_value(v)) for k, v in value.items() if k != "type"]
            pairs += [(k, v) for k, v in again if v is not None]
        inner = sep.join(f"{json.dumps(k)}{colon}{v}" for k, v in pairs)
        return f"{ends[0]}{inner}{ends[1]}"
    if isinstance(value, list):
        inner = sep.join(_rewritten(v, style, rng) for v in value)
        return f"[ {inner} ]" if "spaced" in style else f"[{inner}]"
    return json.dumps(value)


def _other_value(value: Any) -> str | None:
    """Another value for a scalar, as JSON text (``None`` for a container or null): a string
    changed, a number as a string (which no index field takes)."""
    if type(value) is str:
        return json.dumps(value + "~")
    if type(value) is int:
        return json.dumps(str(value))
    return None


def _restyled(body: str, style: str, seed: int) -> str:
    """Every JSON ``data:`` line of an SSE body rewritten (``_rewritten``); the rest as it is."""
    rng = random.Random(seed)
    out: list[str] = []
    for line in body.split("\n"):
        if line.startswith("data: ") and line != "data: [DONE]":
            # (a member overridden only in the deltas: elsewhere it ends the stream early)
            how = style if '"delta"' in line else style.replace("overridden", "")
            line = "data: " + _rewritten(json.loads(line[6:]), how, rng)
        out.append(line)
    return "\n".join(out)


_STYLES = ["reversed", "shuffled", "spaced", "duplicated", "shuffled spaced duplicated"]
_BODIES: dict[str, Callable[..., str]] = {
    "anthropic": _anthropic_body,
    "openai_chat": _chat_body,
    "openai_responses": _responses_body,
    "cohere": _cohere_body,
    "mistral": _mistral_body,
}


def _matches(vendor: str, pieces: list[Any], monkeypatch: Any) -> tuple[int, tuple[Any, ...]]:
    """The fused reading's outcome, and how many events the delta form matched in it."""
    seen = [0]
    feed_items = SSEParser.feed_items

    def counting(parser: SSEParser, piece: Any, fast: Any) -> list[Any]:
        items = feed_items(parser, piece, fast)
        seen[0] += sum(type(item) is re.Match for item in items)
        return items

    with monkeypatch.context() as patch:
        patch.setattr(SSEParser, "feed_items", counting)
        adapter = adapters.get(vendor)
        outcome = _outcome(lambda: adapter.decode_stream(adapter.sse_chunks(pieces)))
    return seen[0], outcome


@pytest.mark.parametrize("style", _STYLES)
@pytest.mark.parametrize("shape", ["tool", "parallel"])
@pytest.mark.parametrize(
    "vendor", ["anthropic", "openai_chat", "openai_responses", "gemini", "cohere", "mistral"]
)
def test_reordered_keys_and_whitespace_read_as_the_vendor_s_own_order(
    vendor: str, shape: str, style: str, monkeypatch: Any
) -> None:
    """A stream whose chunks hold the same JSON written another way (members reordered,
    whitespace, a member repeated) gives, fused, what the general path gives for it, and
    what the vendor's own writing gives: the same events, warnings and errors. Written so
    that no delta can match (reversed, spaced, duplicated), no event goes the fused way."""
    from benchmarks.suite import VENDORS

    body = VENDORS[vendor].build(shape, 300).decode("utf-8")
    other = _restyled(body, style, seed=len(body))
    assert other != body
    seen, fused = _matches(vendor, [other], monkeypatch)
    plain = _both(vendor, [other])[1]
    assert fused[0] == "ok"
    assert fused == plain
    if vendor != "gemini" or style == "spaced":
        # as the vendor's own writing reads (Gemini's call arguments are an object whose
        # members, reordered or written twice, are other argument text)
        assert fused == _both(vendor, [body])[0]
    if style != "shuffled":
        assert seen == 0  # every delta declined, and read the general way
    assert _matches(vendor, [body], monkeypatch)[0] > 100  # (the vendor's own: fused)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted(_BODIES)),
    st.data(),
    st.sampled_from(_STYLES),
    st.integers(min_value=0, max_value=1000),
    st.lists(st.integers(min_value=0), max_size=4),
)
def test_forged_streams_written_another_way_read_the_same_fused(
    vendor: str, data: st.DataObject, style: str, seed: int, cuts: list[int]
) -> None:
    """The forged streams above (texts with escapes and lone surrogates, deltas into no
    block or one of another kind, cut bodies), each chunk written another way: fused and
    general give the same outcome, errors and warnings included."""
    items = {
        "anthropic": _ANTHROPIC_DELTA,
        "openai_chat": _chat_chunk(),
        "openai_responses": _RESPONSES_DELTA,
        "cohere": _COHERE_DELTA,
        "mistral": _mistral_delta(),
    }
    body = _BODIES[vendor](data.draw(st.lists(items[vendor], max_size=6)), data.draw(st.booleans()))
    other = _restyled(body, style, seed)
    fused, plain = _both(vendor, _pieces(other, cuts, as_bytes=False))
    assert fused == plain


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(_BODIES)), st.data(), st.integers(min_value=0, max_value=1000))
def test_a_member_written_twice_reads_as_its_last_value_fused(
    vendor: str, data: st.DataObject, seed: int
) -> None:
    """Each scalar member written again, last, with another value: JSON reads the last one,
    and so must the fused reading (a form whose other members admitted its own keys would
    take the first)."""
    items = {
        "anthropic": _ANTHROPIC_DELTA,
        "openai_chat": _chat_chunk(),
        "openai_responses": _RESPONSES_DELTA,
        "cohere": _COHERE_DELTA,
        "mistral": _mistral_delta(),
    }
    body = _BODIES[vendor](data.draw(st.lists(items[vendor], min_size=1, max_size=6)), True)
    other = _restyled(body, data.draw(st.sampled_from(["overridden", "shuffled overridden"])), seed)
    fused, plain = _both(vendor, [other])
    assert fused == plain


# -- Gemini: whole chunks, written with its spacing (``"key": value``) or compactly


def _gemini_json(value: Any, style: str, ascii_only: bool) -> str:
    """``value`` as JSON text: ``compact``; ``gemini`` (a space after each colon, as the API
    writes); ``default`` (``json.dumps``' own: after each colon and comma); ``reversed``
    (compact, every object's members in the other order)."""
    if style == "reversed":
        if isinstance(value, dict):
            inner = ",".join(
                f"{json.dumps(k, ensure_ascii=ascii_only)}:{_gemini_json(v, style, ascii_only)}"
                for k, v in reversed(value.items())
            )
            return "{" + inner + "}"
        if isinstance(value, list):
            return "[" + ",".join(_gemini_json(v, style, ascii_only) for v in value) + "]"
        return json.dumps(value, ensure_ascii=ascii_only)
    seps = {"compact": (",", ":"), "gemini": (",", ": "), "default": (", ", ": ")}[style]
    return json.dumps(value, separators=seps, ensure_ascii=ascii_only)


_ARG_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)
_GEMINI_PART = st.one_of(
    st.builds(lambda t: {"text": t}, _TEXT),
    st.builds(lambda t: {"text": t, "thought": True}, _TEXT),
    st.builds(
        lambda i, n, a: {"functionCall": {"id": i, "name": n, "args": a}},
        st.sampled_from(["fc-1", "fc-2", "", "fc-\u00e9"]),
        st.sampled_from(["get_weather", "", 'f"q']),
        st.dictionaries(_TEXT, _ARG_VALUE, max_size=3) | _ARG_VALUE,
    ),
    st.builds(
        lambda n, a: {"functionCall": {"name": n, "args": a}},
        st.sampled_from(["get_weather", "g"]),
        st.dictionaries(_TEXT, _ARG_VALUE, max_size=3),
    ),
)
_GEMINI_CHUNK = st.tuples(
    st.lists(_GEMINI_PART, min_size=1, max_size=3),
    st.sampled_from([None, {"promptTokenCount": 3, "totalTokenCount": 5}, {"trafficType": "X"}]),
    st.sampled_from([None, "STOP", "SAFETY"]),
)


def _gemini_chunk(parts: list[Any], usage: Any, finish: str | None, n: int) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
    if finish is not None:
        cand["finishReason"] = finish
    cand["index"] = 0
    chunk: dict[str, Any] = {"candidates": [cand]}
    if usage is not None:
        chunk["usageMetadata"] = {**usage, "candidatesTokenCount": n}
    chunk["modelVersion"] = "gemini-x"
    chunk["responseId"] = "r-1"
    return chunk


def _gemini_body(chunks: list[Any], style: str, ascii_only: bool, end: bool) -> str:
    values = [_gemini_chunk(*c, n) for n, c in enumerate(chunks)]
    if end:
        values.append(_gemini_chunk([{"text": ""}], None, "STOP", len(values)))
    return "".join(f"data: {_gemini_json(v, style, ascii_only)}\r\n\r\n" for v in values)


def _matched(
    vendor: str, pieces: list[Any], reader: Any = SSEParser
) -> tuple[int, tuple[Any, ...]]:
    """The fused reading's outcome and how many events (or lines) the form matched, counted
    in ``reader``'s ``feed_items`` (no fixture: a hypothesis test calls it many times)."""
    seen = [0]
    feed_items = reader.feed_items

    def counting(parser: Any, piece: Any, fast: Any) -> list[Any]:
        items = feed_items(parser, piece, fast)
        seen[0] += sum(type(item) is re.Match for item in items)
        return items

    reader.feed_items = counting
    try:
        adapter = adapters.get(vendor)
        outcome = _outcome(lambda: adapter.decode_stream(adapter.sse_chunks(pieces)))
    finally:
        reader.feed_items = feed_items
    return seen[0], outcome


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_GEMINI_CHUNK, max_size=6),
    st.booleans(),
    st.booleans(),
    st.lists(st.integers(min_value=0), max_size=4),
)
def test_gemini_fused_gives_what_the_general_path_gives_in_every_writing(
    chunks: list[Any], ascii_only: bool, end: bool, cuts: list[int]
) -> None:
    """Forged Gemini streams (texts with escapes and lone surrogates, thoughts, calls with
    any arguments, an empty name or id, several parts, usage with and without counts, a
    finish that is an error), each written compactly, as Gemini writes (``"key": value``),
    as ``json.dumps`` writes and with every object's members reversed: fused and general
    give the same outcome in each writing; and the spacings give the same events."""
    outcomes = {}
    if any(0xD800 <= ord(c) <= 0xDFFF for c in _gemini_body(chunks, "compact", False, end)):
        ascii_only = True  # (Gemini's reader encodes text pieces as UTF-8: escaped here)
    for style in ("compact", "gemini", "default", "reversed"):
        body = _gemini_body(chunks, style, ascii_only, end)
        fused, plain = _both("gemini", _pieces(body, cuts, as_bytes=False))
        assert fused == plain, style
        outcomes[style] = fused
    if outcomes["compact"][0] == "ok":  # (reversed: the arguments' text is reordered too)
        assert outcomes["gemini"] == outcomes["default"] == outcomes["compact"]
        assert outcomes["reversed"][0] == "ok"


@pytest.mark.parametrize("shape", ["tool", "text", "parallel"])
def test_gemini_s_own_writing_and_the_compact_one_go_the_fused_way(shape: str) -> None:
    """The benchmark's compact chunks and the same chunks as Gemini writes them (a space
    after each colon, ``parts`` before ``role``) match the form, chunk after chunk (the
    first, which names the message, and thoughts read the general way), and give the same
    events as their general reading."""
    from benchmarks.suite import VENDORS

    compact = VENDORS["gemini"].build(shape, 300).decode("utf-8")
    spaced = "".join(
        "data: " + _gemini_json(_parts_first(json.loads(ev[6:])), "gemini", False) + "\r\n\r\n"
        for ev in compact.split("\r\n\r\n")
        if ev
    )
    assert '": ' in spaced and '"parts": [' in spaced
    results = []
    for body in (compact, spaced):
        seen, fused = _matched("gemini", [body])
        assert fused[0] == "ok"
        assert fused == _both("gemini", [body])[1]
        assert seen >= 250
        results.append(fused)
    assert results[0] == results[1]


def _parts_first(chunk: dict[str, Any]) -> dict[str, Any]:
    """A chunk with its content's members in the order Gemini writes them."""
    for cand in chunk["candidates"]:
        content = cand["content"]
        cand["content"] = {"parts": content["parts"], "role": content["role"]}
    return chunk


def test_spacing_is_data_of_the_form() -> None:
    """A form declared ``spaced`` takes one space after a colon or comma, or none; one
    declared without takes none; neither takes other whitespace."""
    shape = {"a": Text("a"), "b": [Index("b")], "w": Whole("w", 2)}
    spaced = DeltaForm(shape, spaced=True).pattern
    compact = DeltaForm(shape).pattern
    for text, ok_spaced, ok_compact in [
        ('{"a":"x","b":[1],"w":{"k":[1,2]}}', True, True),
        ('{"a": "x", "b": [1], "w": {"k": [1, 2]}}', True, False),
        ('{"a": "x","b": [1],"w": {"k": [1,2]}}', True, False),
        ('{"a" : "x","b":[1],"w":{}}', False, False),
        ('{"a":  "x","b":[1],"w":{}}', False, False),
        ('{"a":"x","b":[1],"w":{"k":[1,]}}', False, False),
        ('{"a":"x","b":[1],"w":{"k":{"d":[1]}}}', False, False),  # deeper than declared
        ('{"a":"x","b":[1],"w":NaN}', False, False),
        ('{"b":[1],"a":"x","w":1}', False, False),  # reordered
    ]:
        data = f"data: {text}\n\n"
        assert bool(spaced.fullmatch(data)) is ok_spaced, text
        assert bool(compact.fullmatch(data)) is ok_compact, text
        if ok_spaced:
            m = spaced.fullmatch(data)
            assert m is not None and json.loads(m.group("w")) == json.loads(text)["w"]


@settings(max_examples=200, deadline=None)
@given(_ARG_VALUE, st.sampled_from(["compact", "gemini", "default"]), st.booleans())
def test_a_whole_value_the_expression_takes_is_that_json_value(
    value: Any, style: str, ascii_only: bool
) -> None:
    form = DeltaForm({"w": Whole("w", 4)}, spaced=True)
    text = _gemini_json(value, style, ascii_only)
    found = form.pattern.fullmatch(f'data: {{"w": {text}}}\n\n')
    if found is not None:
        assert json.loads(found.group("w")) == value or value != value


# -- Ollama: NDJSON lines (a form declared ``lines``), text, thinking and whole calls


def _ollama_line(message: Any, **extra: Any) -> dict[str, Any]:
    return {"model": "qwen-x", "created_at": "2026-11-30T12:00:00Z", "message": message,
            "done": False, **extra}  # fmt: skip


_OLLAMA_ID = st.sampled_from(["call_1", "call_1", "call_2", "", "\u00e9t\u00e9"])
#: a call's ``arguments``: an object (any keys, numbers JSON reads as infinity, nesting the
#: form does not take), or what Ollama never sends (a string, null, a list, a number)
_OLLAMA_ARGS = st.one_of(
    st.dictionaries(_TEXT, st.none() | st.integers() | _TEXT | st.floats(), max_size=2),
    st.sampled_from(
        [None, "x", "", [1], 3, {"a": {"b": {"c": {"d": {"e": 1}}}}}, {"a": {"b": [1]}}, {}]
    ),
)
_OLLAMA_CALL = st.one_of(
    *[
        st.builds(
            lambda i, n, a, x: {"id": i, "function": {"index": x, "name": n, "arguments": a}},
            _OLLAMA_ID,
            st.sampled_from(["get_weather", "get_weather", "get_time", ""]),
            _OLLAMA_ARGS,
            st.sampled_from([0, 1, 7]),
        )
    ]
    * 3,
    st.sampled_from(
        [
            {"function": {"name": "g", "arguments": {"q": 1}}},  # no id, no index
            {"id": "call_3", "function": {"name": "g"}},  # no arguments
            {"id": "call_4", "function": {"index": -1, "name": "g", "arguments": {}}},
            {"id": "call_5", "function": {"index": 1.5, "name": "g", "arguments": {}}},
            {"id": 5, "function": {"index": 0, "name": "g", "arguments": {}}},
            {"id": "call_6", "function": None},
            "not a call",
        ]
    ),
)


@st.composite
def _ollama_message(draw: st.DrawFn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": draw(_TEXT)}
    if draw(st.booleans()):
        message["thinking"] = draw(_TEXT)
    if draw(st.integers(0, 2)) == 0:
        message["tool_calls"] = draw(st.lists(_OLLAMA_CALL, min_size=1, max_size=3))
    extra = draw(
        st.sampled_from(
            [{}] * 8
            + [
                {"images": ["aGk="]},
                {"tool_name": "f"},
                {"tool_name": ""},
                {"content": None},
                {"thinking": None},
                {"tool_calls": []},
                {"tool_calls": None},
                {"role": "tool"},
            ]
        )
    )
    return {**message, **extra}


#: a line as written: how (compact, ASCII only, ``json.dumps``' spacing), its message and
#: what else the line holds; or a hostile line, as its text
_OLLAMA_ITEM = st.one_of(
    *[
        st.tuples(
            st.sampled_from(["compact", "compact", "ascii", "spaced"]),
            _ollama_message(),
            st.sampled_from(
                [{}] * 8
                + [
                    {"logprobs": [{"token": "a"}]},
                    {"logprobs": None},
                    {"error": "server busy"},
                    {"error": ""},
                    {"done": True, "done_reason": "stop"},
                    {"done": None},
                    {"done": "no"},
                    {"eval_count": 3},
                ]
            ),
        )
    ]
    * 4,
    st.sampled_from(
        [
            "",  # a blank line
            "   ",
            "\r",
            '{"model":',  # not JSON
            "[1]",  # not an object
            '{"model":"m","created_at":"t","message":{"role":"assistant","content":"a"},'
            '"done":false} x',  # more after the object
            '\ufeff{"model":"m","created_at":"t","message":{"role":"assistant","content":"b"},'
            '"done":false}',  # a byte order mark inside the stream
            '{"model":"m","n":' + "1" * 700 + ',"message":{"role":"assistant","content":"c"},'
            '"done":false}',  # an integer json.loads refuses
            '{"model":"m","message":{"role":"assistant","content":"d","x":'
            + "[" * 300
            + "]" * 300
            + '},"done":false}',  # nested past the depth cap
            '{"model":"m","message":{"role":"assistant","content":"e\\ud800"},"done":false}',
            '{"model":"m","message":{"role":"assistant","content":"f\ud83d"},"done":false}',
            '{"model":"m","message":{"role":"assistant","content":"g","content":"h"},'
            '"done":false}',  # a member written twice: the last one counts
            '{"message":{"role":"assistant","content":"i"},"done":false}',  # no model
        ]
    ),
)


def _ollama_body(items: list[Any], first: bool, end: str, crlf: bool = False) -> str:
    """NDJSON lines: a first line (or none), the items, then the ``done`` line ended by
    ``\\n`` (``"newline"``), not ended (``"bare"``), cut inside (``"cut"``) or absent."""
    lines: list[str] = []
    if first:
        lines.append(_compact(_ollama_line({"role": "assistant", "content": ""}), True))
    for item in items:
        if isinstance(item, str):
            lines.append(item)
            continue
        style, message, extra = item
        value = _ollama_line(message, **extra)
        lines.append(json.dumps(value) if style == "spaced" else _compact(value, style == "ascii"))
    last = {**_ollama_line({"role": "assistant", "content": ""}), "done": True,
            "done_reason": "stop", "prompt_eval_count": 2, "eval_count": 5}  # fmt: skip
    body = "".join(line + ("\r\n" if crlf else "\n") for line in lines)
    text = _compact(last, True)
    if end == "newline":
        return body + text + "\n"
    if end == "bare":
        return body + text
    if end == "cut":
        return body + text[:20]
    return body


@settings(max_examples=250, deadline=None)
@given(
    st.lists(_OLLAMA_ITEM, max_size=8),
    st.booleans(),
    st.sampled_from(["newline", "newline", "bare", "cut", "none"]),
    st.lists(st.integers(min_value=0), max_size=6),
    st.booleans(),
    st.booleans(),
)
@example([("compact", {"role": "assistant", "content": "", "thinking": "hm"}, {})] * 2
         + [("compact", {"role": "assistant", "content": "", "tool_calls": [
             {"id": "call_1", "function": {"index": 0, "name": "f", "arguments": {"a": 1}}}]},
             {})] * 2, True, "newline", [], True, False)  # fmt: skip
def test_ollama_fused_gives_what_the_general_path_gives(
    items: list[Any], first: bool, end: str, cuts: list[int], as_bytes: bool, crlf: bool
) -> None:
    """Forged Ollama streams (texts with escapes and lone surrogates, thinking and text in
    one line, calls of every shape, an id again, lines that are not JSON, not objects,
    blank, too deep, with a number Python will not read, an error, a ``done`` line in the
    middle, a last line without its ``\\n`` or cut), cut anywhere: fused and general give
    the same events, warnings and error."""
    body = _ollama_body(items, first, end, crlf)
    if as_bytes and any(0xD800 <= ord(c) <= 0xDFFF for c in body):
        as_bytes = False
    fused, plain = _both("ollama", _pieces(body, cuts, as_bytes))
    assert fused == plain


def _ollama_matched(pieces: list[Any]) -> tuple[int, tuple[Any, ...]]:
    """The fused reading's outcome and how many lines the form matched."""
    from toolwire.protocol.ndjson import NDJSONReader

    return _matched("ollama", pieces, NDJSONReader)


@pytest.mark.parametrize("shape", ["tool", "text", "parallel"])
def test_ollama_s_lines_go_the_fused_way(shape: str) -> None:
    """The benchmark's lines (Ollama's own writing) match the form, every line but the
    first (which names the message) and the last; cut in pieces, the same."""
    from benchmarks.suite import VENDORS

    body = VENDORS["ollama"].build(shape, 300)
    lines = body.count(b"\n")
    for pieces in ([body], [body[i : i + 997] for i in range(0, len(body), 997)]):
        seen, fused = _ollama_matched(pieces)
        assert fused[0] == "ok"
        assert fused == _both("ollama", pieces)[1]
        assert seen >= lines - 2 - len(pieces)


@pytest.mark.parametrize("style", _STYLES)
@pytest.mark.parametrize("shape", ["tool", "parallel"])
def test_ollama_lines_written_another_way_read_the_same(shape: str, style: str) -> None:
    """Ollama's lines written another way (members reordered, whitespace, a member
    repeated): fused, what the general path gives (spaced: the events of Ollama's own
    writing); written so that no line can match (reversed, spaced, duplicated), none goes fused."""
    from benchmarks.suite import VENDORS

    body = VENDORS["ollama"].build(shape, 300).decode("utf-8")
    rng = random.Random(len(body))
    lines = body.split("\n")
    other = "\n".join(_rewritten(json.loads(x), style, rng) if x else x for x in lines)
    assert other != body
    seen, fused = _ollama_matched([other])
    assert fused[0] == "ok"
    assert fused == _both("ollama", [other])[1]
    if style == "spaced":  # (reordered or repeated, a call's arguments are other text)
        assert fused == _both("ollama", [body])[0]
    if style != "shuffled":
        assert seen == 0


@given(_OLLAMA_ITEM)
def test_the_ollama_form_matches_no_last_line_and_one_object_only(item: Any) -> None:
    """What the form matches is one JSON object, never a line that ends the stream (a
    match is no dict: nothing asks it whether it is the last)."""
    from toolwire.adapters.ollama.wire import DELTA_FORM as OLLAMA_DELTA

    line = _ollama_body([item], False, "none")
    found = OLLAMA_DELTA.pattern.fullmatch(line)
    if found is None:
        return
    value = json.loads(found.group("data"))
    assert type(value) is dict and value["done"] is False and not value.get("error")


@pytest.mark.parametrize(
    ("vendor", "body"),
    [
        ("ollama", '{"model":"m","created_at":"t","message":{"role":"assistant","content":""},'
         '"done":false}\n{"model":"m","n":' + "7" * 5000 + ',"message":{"role":"assistant",'
         '"content":"x"},"done":false}\n'),
        ("mistral", _mistral_body([("compact", {"content": "x"}, {})], True).replace(
            '"created":1,', '"created":' + "7" * 5000 + ",")),
    ],
)  # fmt: skip
def test_a_number_python_will_not_read_is_named_fused_too(vendor: str, body: str) -> None:
    """An integer longer than Python's digit limit is valid JSON ``json.loads`` refuses: a
    member the form takes as any scalar must not take it (the general path names it)."""
    fused, plain = _both(vendor, [body])
    assert fused == plain
    assert fused[0] == "error" and "digits" in fused[2]
