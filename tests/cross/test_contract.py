"""The adapter contract (toolwire.adapters.contract), checked on every adapter alike.

One test per rule, parametrized over ``adapters.names()`` (plugins included): the surface names and
their signatures (the stream functions bound from one place), unknown keyword options
and bad option values raising ``UnsupportedInput`` that names them, ``decode_request``
ids minted the same way (the given ones win; a replay agrees; a continued conversation
keeps its thread), ``sse_chunks`` taking a whole body and its pieces alike, and losses
as values (``Encoded.losses``, ``Encoder.losses``, ``Decoder.losses``) warned once each.
The result-only peer (MCP) has its own, smaller contract.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import warnings
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    Context,
    EventType,
    FunctionCall,
    RunAgentInput,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire import adapters
from toolwire.errors import UnsupportedInput
from toolwire.losses import ToolwireWarning
from toolwire.protocol.dispatch import handlers_by_type

NAMES = adapters.names()  # built-ins and installed plugins alike


def _input(text: str = "What is the weather in Oslo?") -> RunAgentInput:
    return RunAgentInput(
        thread_id="thread-contract",
        run_id="run-contract",
        messages=[UserMessage(id="u1", content=text)],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )


def _events() -> list[dict[str, Any]]:
    """One framed run with text and a tool call, as AG-UI event dicts (the AG-UI spec's shapes)."""
    return [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Looking it up."},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "call_1",
            "toolCallName": "get_weather",
            "parentMessageId": "m1",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call_1", "delta": '{"city": "Oslo"}'},
        {"type": "TOOL_CALL_END", "toolCallId": "call_1"},
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
    ]


def _with_call(*after: Any) -> RunAgentInput:
    """A user question, the assistant's call ``call_1``, then ``after`` (e.g. its answer)."""
    call = ToolCall(id="call_1", function=FunctionCall(name="get_weather", arguments="{}"))
    messages = [
        UserMessage(id="u1", content="weather?"),
        AssistantMessage(id="a1", tool_calls=[call]),
        *after,
    ]
    return _input().model_copy(update={"messages": messages})


def _encode(name: str, run_input: RunAgentInput, **options: Any) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # losses are not what these tests look at
        return adapters.get(name).encode_request(run_input, model="m-contract", **options)


def _raises_naming(*words: str) -> Any:
    """``pytest.raises(UnsupportedInput)`` whose message names every word."""

    class _Check:
        def __enter__(self) -> None:
            self._ctx = pytest.raises(UnsupportedInput)
            self._info = self._ctx.__enter__()

        def __exit__(self, *exc: Any) -> bool:
            handled = bool(self._ctx.__exit__(*exc))
            for w in words:
                assert w in str(self._info.value), (w, str(self._info.value))
            return handled

    return _Check()


# ------------------------------------------------------------------ surface


@pytest.mark.parametrize("name", NAMES)
def test_every_surface_name_is_there(name: str) -> None:
    adapter = adapters.get(name)
    for attr in (*adapters.SURFACE, "sse_chunks", "MODEL_ROUTE"):
        assert hasattr(adapter, attr), f"{name} lacks {attr}"
    for attr in adapters.SURFACE:
        assert callable(getattr(adapter, attr)), f"{name}.{attr}"
    assert adapter.Decoder.vendor == name


@pytest.mark.parametrize("name", NAMES)
def test_the_stream_functions_share_one_signature(name: str) -> None:
    adapter = adapters.get(name)
    for attr, first in (
        ("decode_stream", "chunks"),
        ("adecode_stream", "chunks"),
        ("encode_stream", "events"),
        ("decode_response", "response"),
    ):
        params = list(inspect.signature(getattr(adapter, attr)).parameters.values())
        assert [p.name for p in params] == [first, "options"], (name, attr)
        assert params[1].kind is inspect.Parameter.VAR_KEYWORD


@pytest.mark.parametrize("name", NAMES)
def test_request_functions_have_the_common_parameters(name: str) -> None:
    adapter = adapters.get(name)
    dec = inspect.signature(adapter.decode_request).parameters
    assert next(iter(dec)) == "body"
    for key in ("thread_id", "run_id"):
        assert dec[key].kind is inspect.Parameter.KEYWORD_ONLY, (name, key)
        assert dec[key].default is None, (name, key)
    enc = inspect.signature(adapter.encode_request).parameters
    assert next(iter(enc)) == "run_input"
    for key, default in (("media", "drop"), ("losses", None)):
        assert enc[key].kind is inspect.Parameter.KEYWORD_ONLY, (name, key)
        assert enc[key].default == default, (name, key)
    assert enc["model"].kind is inspect.Parameter.KEYWORD_ONLY
    for cls in (adapter.Decoder, adapter.Encoder):
        for p in inspect.signature(cls).parameters.values():
            assert p.kind is inspect.Parameter.KEYWORD_ONLY, (name, cls.__name__, p.name)
            assert p.default is not inspect.Parameter.empty, (name, cls.__name__, p.name)


# ------------------------------------------------------------------ options


@pytest.mark.parametrize("name", NAMES)
def test_unknown_stream_options_raise_naming_them(name: str) -> None:
    adapter = adapters.get(name)
    with _raises_naming("bogus_option", f"{name}.decode_stream"):
        adapter.decode_stream([], bogus_option=1)
    with _raises_naming("bogus_option", f"{name}.adecode_stream"):
        adapter.adecode_stream(_nothing(), bogus_option=1)
    with _raises_naming("bogus_option", f"{name}.encode_stream"):
        adapter.encode_stream([], bogus_option=1)
    with _raises_naming("bogus_option", f"{name}.decode_response"):
        adapter.decode_response({}, bogus_option=1)


async def _nothing() -> AsyncIterator[Any]:
    return
    yield  # pragma: no cover - makes this an async generator


@pytest.mark.parametrize("name", NAMES)
def test_unknown_request_options_raise_naming_them(name: str) -> None:
    adapter = adapters.get(name)
    body = _encode(name, _input())
    with _raises_naming("bogus_option", f"{name}.decode_request"):
        adapter.decode_request(body, bogus_option=1)
    takes_vendor_keys = any(
        p.kind is inspect.Parameter.VAR_KEYWORD
        for p in inspect.signature(adapter.encode_request).parameters.values()
    )
    if takes_vendor_keys:
        # documented: extra keywords are request-body fields of the vendor's API, kept as given
        assert _encode(name, _input(), bogus_option=1)["bogus_option"] == 1
    else:
        with _raises_naming("bogus_option", f"{name}.encode_request"):
            _encode(name, _input(), bogus_option=1)


@pytest.mark.parametrize("name", NAMES)
def test_a_bad_media_value_raises_naming_it(name: str) -> None:
    with _raises_naming("media", "'bogus'"):
        _encode(name, _input(), media="bogus")


@pytest.mark.parametrize("name", NAMES)
def test_a_bad_unanswered_value_raises_naming_it(name: str) -> None:
    history = _with_call()
    # an adapter that sends no tool history has no unanswered= at all: then it is unknown
    with _raises_naming("unanswered"):
        _encode(name, history, unanswered="bogus")


def test_asgard_decoder_call_ids_value_is_checked() -> None:
    with _raises_naming("call_ids", "'bogus'"):
        adapters.get("asgard").Decoder(call_ids="bogus")


# ------------------------------------------------------------------ ids


@pytest.mark.parametrize("name", NAMES)
def test_decode_request_honours_given_ids(name: str) -> None:
    adapter = adapters.get(name)
    got = adapter.decode_request(_encode(name, _input()), thread_id="t-given", run_id="r-given")
    assert (got.thread_id, got.run_id) == ("t-given", "r-given")


@pytest.mark.parametrize("name", NAMES)
def test_decode_request_mints_ids_from_the_body(name: str) -> None:
    adapter = adapters.get(name)
    one = adapter.decode_request(_encode(name, _input()))
    again = adapter.decode_request(_encode(name, _input()))
    other = adapter.decode_request(_encode(name, _input("And in Bergen?")))
    assert (one.thread_id, one.run_id) == (again.thread_id, again.run_id)  # a replay agrees
    assert one.run_id.startswith("run_") and one.run_id != other.run_id
    if name == "asgard":  # the channel is the vendor's own thread id, sent with the body
        assert one.thread_id == _input().thread_id
    else:
        assert one.thread_id.startswith("thread_"), one.thread_id


# ------------------------------------------------------------------ framing


def _vendor_chunks(name: str) -> list[dict[str, Any]]:
    """The vendor chunks of :func:`_events` (losses are not what these tests look at)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(adapters.get(name).encode_stream(_events()))


@pytest.mark.parametrize("name", NAMES)
def test_sse_chunks_takes_whole_bytes_text_and_pieces_alike(name: str) -> None:
    adapter = adapters.get(name)
    chunks = _vendor_chunks(name)
    body = adapter.to_sse(chunks)
    assert isinstance(body, bytes) and body
    whole = list(adapter.sse_chunks(body))
    assert whole, name
    assert list(adapter.sse_chunks(body.decode("utf-8"))) == whole
    for size in (1, 7, 64):
        pieces = [body[i : i + size] for i in range(0, len(body), size)]
        assert list(adapter.sse_chunks(pieces)) == whole, (name, size)
    assert list(adapter.sse_chunks(iter([body]))) == whole


@pytest.mark.parametrize("name", NAMES)
def test_async_and_sync_decoding_agree(name: str) -> None:
    adapter = adapters.get(name)
    chunks = _vendor_chunks(name)

    async def feed() -> AsyncIterator[Any]:
        for c in chunks:
            yield c

    async def collect() -> list[Any]:
        return [e async for e in adapter.adecode_stream(feed())]

    sync = list(adapter.decode_stream(chunks))
    assert sync, name
    assert asyncio.run(collect()) == sync


# ------------------------------------------------------------------ result peers


@pytest.mark.parametrize("name", adapters.RESULT_PEERS)
def test_a_result_peer_keeps_its_contract(name: str) -> None:
    peer = adapters.get(name)
    for attr in adapters.RESULT_SURFACE:
        assert callable(getattr(peer, attr)), (name, attr)
    for attr in ("encode_result", "encode_tool", "encode_call"):
        losses = inspect.signature(getattr(peer, attr)).parameters["losses"]
        assert losses.kind is inspect.Parameter.KEYWORD_ONLY and losses.default is None
    with _raises_naming("bogus_option", f"{name}.decode_result"):
        peer.decode_result({"content": []}, tool_call_id="c1", bogus_option=1)
    message = ToolMessage(id="m1", tool_call_id="c1", content="ok")
    with _raises_naming("bogus_option", f"{name}.encode_result"):
        peer.encode_result(message, bogus_option=1)
    assert name not in adapters.NAMES  # stream tools never treat it as a stream adapter


# ------------------------------------------------------------------ losses as values


@pytest.mark.parametrize("name", NAMES)
def test_encode_request_returns_its_losses_with_the_body(name: str) -> None:
    # a call answered with an error: Asgard and Dialogflow send no tool-result history, so
    # they must report what they leave out; every adapter's value and list must agree
    run_input = _with_call(
        ToolMessage(id="t1", tool_call_id="call_1", content="sunny", error="boom")
    )
    given: list[Any] = []
    body = _encode(name, run_input, losses=given)
    assert isinstance(body, dict)
    assert json.loads(json.dumps(body)) == dict(body)  # still a plain JSON body
    assert body.losses == given  # the value and the list agree
    again = _encode(name, run_input)  # no list passed: the value alone says it
    assert again.losses == given
    if name in ("asgard", "dialogflow"):
        assert given, f"{name} carries no tool result history, and must say so"


@pytest.mark.parametrize("name", NAMES)
def test_encode_request_warns_once_per_loss(name: str) -> None:
    # warnings stay on, raised once at the surface: as many as the value holds, no more
    image = {"type": "image", "source": {"type": "url", "value": "https://example.com/c.png"}}
    run_input = _with_call(
        ToolMessage(id="t1", tool_call_id="call_1", content=[{"type": "text", "text": "x"}, image])
    )
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        body = adapters.get(name).encode_request(run_input, model="m-contract")
    ours = [str(w.message) for w in seen if issubclass(w.category, ToolwireWarning)]
    assert ours == [x.message for x in body.losses], name
    assert {w.filename for w in seen if issubclass(w.category, ToolwireWarning)} <= {__file__}


@pytest.mark.parametrize("name", NAMES)
def test_decoders_and_encoders_hold_their_losses_as_values(name: str) -> None:
    adapter = adapters.get(name)
    for made in (adapter.Decoder(), adapter.Encoder()):
        assert made.losses == [], (name, type(made).__name__)


@pytest.mark.parametrize("name", NAMES)
def test_an_encoder_warns_once_per_loss(name: str) -> None:
    # a MESSAGES_SNAPSHOT restates history; a stream that cannot carry it says so once
    events = [
        _events()[0],
        {"type": "MESSAGES_SNAPSHOT", "messages": []},
        *_events()[1:],
    ]
    encoder = adapters.get(name).Encoder()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for ev in events:
            encoder.feed(ev)
        encoder.close()
    ours = [str(w.message) for w in seen if issubclass(w.category, ToolwireWarning)]
    assert ours == [x.message for x in encoder.losses], name


@pytest.mark.parametrize("name", NAMES)
def test_the_stream_functions_are_bound_from_one_place(name: str) -> None:
    adapter = adapters.get(name)
    for attr in ("decode_stream", "adecode_stream", "encode_stream", "decode_response"):
        assert getattr(adapter, attr).__module__ == "toolwire.protocol.surface", (name, attr)


#: The vendor's own conversation identity, for a peer whose body carries no history.
_CONVERSATION = {
    "dialogflow": {"participant": "projects/p/locations/global/conversations/c1/participants/u1"}
}


@pytest.mark.parametrize("name", NAMES)
def test_a_continued_conversation_keeps_its_thread_id(name: str) -> None:
    # decode_request mints ids the same way everywhere: the thread from what stays the same
    # across a conversation's requests, the run from the request
    adapter = adapters.get(name)
    options = _CONVERSATION.get(name, {})
    opening = _with_call().messages[:1]  # the user's question alone
    first = adapter.decode_request(
        _encode(name, _input().model_copy(update={"messages": opening}), **options)
    )
    later = adapter.decode_request(
        _encode(
            name,
            _with_call(
                ToolMessage(id="t1", tool_call_id="call_1", content="sunny"),
                UserMessage(id="u2", content="and tomorrow?"),
            ),
            **options,
        )
    )
    assert first.thread_id == later.thread_id, name
    assert first.run_id != later.run_id, name


@pytest.mark.parametrize("name", NAMES)
def test_a_decoder_or_encoder_built_directly_names_an_unknown_option(name: str) -> None:
    adapter = adapters.get(name)
    for cls in (adapter.Decoder, adapter.Encoder):
        with pytest.raises(UnsupportedInput, match="'bogus'") as caught:
            cls(bogus=1)
        assert "self" not in str(caught.value), (name, cls)
        assert f"{name}.{cls.__name__}" in str(caught.value)


def test_an_ignored_loss_is_still_a_value_and_a_shown_one_still_warns() -> None:
    # the filters decide: text for a loss is skipped only when they surely drop it
    run_input = _with_call(ToolMessage(id="t1", tool_call_id="call_1", content="sunny"))
    run_input = run_input.model_copy(update={"context": [Context(description="d", value="v")]})
    adapter = adapters.get("openai_chat")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("ignore")
        quiet = adapter.encode_request(run_input, model="m")
    assert quiet.losses and not seen
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("ignore")
        warnings.filterwarnings("always", message="toolwire", category=ToolwireWarning)
        shown = adapter.encode_request(run_input, model="m")
    assert [str(w.message) for w in seen] == [x.message for x in shown.losses]


#: the encoders that dispatch on a handler table (``protocol.dispatch``)
TABLED = [n for n in NAMES if handlers_by_type(adapters.get(n).Encoder)]


def test_the_tabled_encoders_are_the_ones_expected() -> None:
    assert TABLED == list(NAMES)  # one dispatch style: every encoder has its handler table


@pytest.mark.parametrize("name", TABLED)
def test_a_subclass_handler_is_the_one_called(name: str) -> None:
    """The table is built per class: a subclass's own ``_on_tool_call_args`` is called."""
    base = adapters.get(name).Encoder
    seen: list[str] = []

    class Watching(base):  # type: ignore[misc, valid-type]
        def _on_tool_call_args(self, ev: Any) -> Any:
            seen.append(ev.delta)
            return super()._on_tool_call_args(ev)

    assert handlers_by_type(Watching)[EventType.TOOL_CALL_ARGS] is Watching._on_tool_call_args
    assert handlers_by_type(base)[EventType.TOOL_CALL_ARGS] is base._on_tool_call_args
    encoder = Watching()
    for ev in _events():
        encoder.feed(ev)
    encoder.close()
    assert seen == ['{"city": "Oslo"}']
