"""Gemini streams: re-chunking, encode round trips through google-genai, bad input.

Re-chunking: any split of the SSE bytes gives the same events. Encoding: our SSE, parsed by
google-genai, holds the same calls, ids and arguments, and decodes back to the same run.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from _gemini_project import calls_of, text_of_stream
from _gemini_sdk import CORPUS, OWN, sdk_parse_sse
from ag_ui.core import BaseEvent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.adapters import gemini
from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import ContentLossWarning
from toolwire.protocol import SSEParser, frame_run
from toolwire.testing.recording_cache import recording

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "streams"


def _bodies() -> list[Any]:
    out = []
    for path in sorted(OWN.glob("*.yaml")) + sorted(CORPUS.glob("*.yaml")):
        for n, ex in enumerate(recording(path)):
            if ex.is_sse and "googleapis" in ex.uri and b"\n{" not in ex.response_body:
                out.append(pytest.param(ex.response_body, id=f"{path.stem[:50]}:{n}"))
    for name in ("gemini.sse", "vertex_partial_args.sse"):
        if (REFERENCE / name).is_file():
            out.append(pytest.param((REFERENCE / name).read_bytes(), id=name))
    return out


BODIES = _bodies()


def _dump(events: list[BaseEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(by_alias=True, exclude_none=True) for e in events]


def _decode_pieces(pieces: list[bytes]) -> list[dict[str, Any]]:
    parser = SSEParser()
    decoder = gemini.Decoder()
    events: list[BaseEvent] = []
    sse = [e for p in pieces for e in parser.feed(p)] + parser.close(flush_incomplete=True)
    for e in sse:
        events.extend(decoder.feed(json.loads(e.data)))
    try:
        events.extend(decoder.close())
    except (TruncatedStream, VendorStreamError) as exc:
        events.append(exc)  # type: ignore[arg-type]
    return [e.model_dump() if isinstance(e, BaseEvent) else repr(e) for e in events]


def test_there_are_streams_to_rechunk() -> None:
    assert len(BODIES) >= 8


@pytest.mark.parametrize("body", BODIES)
@settings(
    max_examples=settings.default.max_examples // 4,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_any_split_of_the_bytes_gives_identical_events(body: bytes, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=12)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    assert _decode_pieces(pieces) == _decode_pieces([body])


def _run(chunks: Any) -> list[BaseEvent]:
    return list(frame_run(gemini.Decoder(), chunks, thread_id="t", run_id="r"))


def _merge_args(dumped: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One ARGS per call (Gemini API streams whole calls; Vertex piecewise text is one text)."""
    out: list[dict[str, Any]] = []
    for e in dumped:
        if (
            e["type"] == "TOOL_CALL_ARGS"
            and out
            and out[-1]["type"] == "TOOL_CALL_ARGS"
            and (out[-1]["toolCallId"] == e["toolCallId"])
        ):
            out[-1] = {**out[-1], "delta": out[-1]["delta"] + e["delta"]}
        else:
            out.append(e)
    return out


ROUND_TRIP = [
    "gemini3_parallel_calls_signature.yaml",
    "vertex_partial_args.yaml",
    "code_execution.yaml",
    "grounding.yaml",
    "gemini3_function_response_media.yaml",
    "vertex_function_response_gcs.yaml",
]


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_encoded_stream_parses_in_the_sdk_and_decodes_back_to_the_same_run(
    name: str, tmp_path: Path
) -> None:
    ex = recording(OWN / name)[0]
    run = _run(gemini.sse_chunks(ex.response_body))
    assert run[-1].type.value == "RUN_FINISHED"
    with _no_warning():
        body = gemini.to_sse(gemini.encode_stream(run))
    assert b"\r\n\r\n" in body and all(
        line.startswith(b"data: ") for line in body.split(b"\r\n") if line
    )
    sdk = sdk_parse_sse(tmp_path, body)
    sdk_calls = [
        (p.function_call.id, p.function_call.name, p.function_call.args or {})
        for r in sdk
        for p in r.candidates[0].content.parts or []
        if p.function_call
    ]
    ours = [(c, n, json.loads(a)) for c, n, a in calls_of(run)]
    # calls, or (the media cassettes, recorded for their requests) a text answer: never a run
    # with nothing in it, which would round-trip vacuously
    assert ours or text_of_stream(run), name
    assert sdk_calls == [c for c in ours if c[1] not in ("code_execution", "google_search")]
    again = _run(sdk)
    assert _merge_args(_dump(again)) == _merge_args(_dump(run))


class _no_warning:
    def __enter__(self) -> None:
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc: object) -> None:
        self._cm.__exit__(*exc)


def test_what_a_model_stream_cannot_carry_is_a_recorded_loss() -> None:
    from ag_ui.core import ToolCallEndEvent, ToolCallResultEvent, ToolCallStartEvent

    enc = gemini.Encoder()
    events = [
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f", parent_message_id="m1"),
        ToolCallEndEvent(tool_call_id="c1"),
        ToolCallResultEvent(message_id="t1", tool_call_id="c1", content="client result"),
    ]
    with pytest.warns(UserWarning, match="result"):
        chunks = [c for e in events for c in enc.feed(e)] + enc.close()
    assert [x.kind for x in enc.losses] == ["result-dropped"]
    assert chunks[0]["candidates"][0]["content"]["parts"] == [
        {"functionCall": {"id": "c1", "name": "f", "args": {}}}
    ]
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"


def _chunk(parts: Any, **cand: Any) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, **cand}],
        "responseId": "r1",
    }


@pytest.mark.parametrize(
    ("chunks", "where"),
    [
        ([{"candidates": {"not": "a list"}}], "chunk 0: candidates"),
        (
            [_chunk([{"functionCall": {"name": "f", "args": [1]}}])],
            r"chunk 0: candidates\[0\]\.content\.parts\[0\]\.functionCall\.args",
        ),
        (
            [_chunk([{"text": "a"}]), _chunk([{"functionCall": {"args": {}}}])],
            r"chunk 1: candidates\[0\]\.content\.parts\[0\]\.functionCall\.name",
        ),
        ([_chunk([{"text": 5}])], r"chunk 0: candidates\[0\]\.content\.parts\[0\]\.text"),
        (
            [
                _chunk([{"functionCall": {"name": "f", "willContinue": True}}]),
                _chunk(
                    [
                        {
                            "functionCall": {
                                "partialArgs": [{"jsonPath": "$.a", "numberValue": "x"}],
                                "willContinue": True,
                            }
                        }
                    ]
                ),
            ],
            r"chunk 1: .*partialArgs\[0\]",
        ),
        (
            [
                _chunk([{"functionCall": {"name": "f", "willContinue": True}}]),
                _chunk([{"text": "interleaved"}]),
            ],
            "still streaming",
        ),
        (["not an object"], "chunk 0"),
    ],
)
def test_bad_input_names_the_chunk_and_field(chunks: list[Any], where: str) -> None:
    with pytest.raises(VendorDataError, match=where):
        list(gemini.decode_stream(chunks))


def test_unknown_parts_are_announced_and_unknown_fields_skipped() -> None:
    with pytest.warns(ContentLossWarning) as seen:
        events = list(
            gemini.decode_stream(
                [
                    _chunk([{"someFuturePart": {"x": 1}}, {"text": "ok"}], newField=1),
                    _chunk([], finishReason="STOP"),
                ]
            )
        )
    assert [str(w.message) for w in seen] == [
        "toolwire: model-part-dropped for AG-UI: chunk 0: candidates[0].content.parts[0]: "
        "a model part holding someFuturePart has no AG-UI event"
    ]
    assert [e.type.value for e in events] == [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
    ]
    assert events[1].delta == "ok"  # the known part beside the unknown one is kept whole


def test_vendor_error_and_blocked_prompt_raise_with_the_vendor_type() -> None:
    with pytest.raises(VendorStreamError) as info:
        list(
            gemini.decode_stream(
                [{"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}}]
            )
        )
    assert (info.value.error_type, info.value.message, info.value.retryable) == (
        "RESOURCE_EXHAUSTED",
        "slow down",
        True,
    )
    with pytest.raises(VendorStreamError, match="SAFETY"):
        list(gemini.decode_stream([{"promptFeedback": {"blockReason": "SAFETY"}}]))
    with pytest.raises(VendorStreamError, match="UNEXPECTED_TOOL_CALL"):
        list(gemini.decode_stream([_chunk([], finishReason="UNEXPECTED_TOOL_CALL")]))


def test_streamed_call_cut_off_is_truncation() -> None:
    chunks = [_chunk([{"functionCall": {"name": "f", "willContinue": True}}])]
    with pytest.raises(TruncatedStream):
        list(gemini.decode_stream(chunks))


def test_sse_body_that_is_not_json_names_the_event() -> None:
    with pytest.raises(VendorDataError, match="SSE event 1"):
        list(gemini.sse_chunks(b'data: {"a": 1}\r\n\r\ndata: {oops\r\n\r\n'))


def test_ids_are_minted_deterministically_for_calls_without_ids() -> None:
    chunks = [
        _chunk(
            [
                {"functionCall": {"name": "f", "args": {}}},
                {"functionCall": {"name": "f", "args": {}}},
            ],
            finishReason="STOP",
        )
    ]
    first = calls_of(list(gemini.decode_stream(chunks)))
    assert first == calls_of(list(gemini.decode_stream(chunks)))
    assert len({c[0] for c in first}) == 2


def test_async_and_whole_response_decoding_agree_with_the_stream() -> None:
    chunks = [
        _chunk([{"text": "hi "}]),
        _chunk([{"functionCall": {"id": "c", "name": "f", "args": {"a": 1}}}], finishReason="STOP"),
    ]

    async def collect() -> list[BaseEvent]:
        async def gen() -> Any:
            for c in chunks:
                yield c

        return [e async for e in gemini.adecode_stream(gen())]

    sync = list(gemini.decode_stream(chunks))
    assert _dump(asyncio.run(collect())) == _dump(sync)
    whole = _chunk(
        [{"text": "hi "}, {"functionCall": {"id": "c", "name": "f", "args": {"a": 1}}}],
        finishReason="STOP",
    )
    assert _dump(gemini.decode_response(whole)) == _dump(sync)


def test_a_signature_sent_before_its_call_still_rides_on_the_call() -> None:
    from ag_ui.core import (
        ReasoningEncryptedValueEvent,
        ToolCallArgsEvent,
        ToolCallEndEvent,
        ToolCallStartEvent,
    )

    events = [
        ReasoningEncryptedValueEvent(subtype="tool-call", entity_id="c1", encrypted_value="c2ln"),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f", parent_message_id="m1"),
        ToolCallArgsEvent(tool_call_id="c1", delta='{"a":1}'),
        ToolCallEndEvent(tool_call_id="c1"),
    ]
    chunks = list(gemini.encode_stream(events))
    part = chunks[0]["candidates"][0]["content"]["parts"][0]
    assert part == {
        "functionCall": {"id": "c1", "name": "f", "args": {"a": 1}},
        "thoughtSignature": "c2ln",
    }
    assert chunks[0]["responseId"] == "m1"


def test_a_stream_without_response_id_mints_the_same_message_id_from_sdk_objects() -> None:
    from google.genai import types

    raw = [
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"text": "hi", "thoughtSignature": "c2lnKz8+"},
                            {"functionCall": {"name": "f", "args": {"n": 3}}},
                        ],
                    },
                    "finishReason": "STOP",
                }
            ]
        }
    ]
    sdk = [types.GenerateContentResponse.model_validate(c) for c in raw]
    from_raw = _dump(list(gemini.decode_stream(raw)))
    assert from_raw[0]["messageId"].startswith("gemini_msg_")
    assert _dump(list(gemini.decode_stream(sdk))) == from_raw


def test_how_the_turn_ended_reaches_run_finished_and_goes_back_on_the_wire(
    tmp_path: Path,
) -> None:
    run = _run(
        [_chunk([{"text": "The answer is"}]), _chunk([{"text": " cut"}], finishReason="MAX_TOKENS")]
    )
    assert run[-1].type.value == "RUN_FINISHED"
    assert run[-1].metadata == {
        "gemini.finishReason": "MAX_TOKENS",
        "toolwire.finishReason": "length",
    }
    sdk = sdk_parse_sse(tmp_path, gemini.to_sse(gemini.encode_stream(run)))
    assert [r.candidates[0].finish_reason for r in sdk if r.candidates[0].finish_reason] == [
        "MAX_TOKENS"
    ]
    assert _dump(_run(sdk))[-1]["metadata"] == {
        "gemini.finishReason": "MAX_TOKENS",
        "toolwire.finishReason": "length",
    }


def test_a_failed_code_run_without_output_says_so_in_its_content(tmp_path: Path) -> None:
    # docs/decisions.md: the content carries the error text when there is nothing else.
    # google-genai's CodeExecutionResult: ``output`` is optional ("stderr or other description").
    code = {"executableCode": {"id": "x1", "language": "PYTHON", "code": "while True: pass"}}
    failed = {"codeExecutionResult": {"id": "x1", "outcome": "OUTCOME_DEADLINE_EXCEEDED"}}
    run = _run([_chunk([code, failed], finishReason="STOP")])
    (result,) = [e for e in run if e.type.value == "TOOL_CALL_RESULT"]
    assert result.content == "OUTCOME_DEADLINE_EXCEEDED"
    assert result.metadata["toolwire.error"] == "OUTCOME_DEADLINE_EXCEEDED"
    sdk = sdk_parse_sse(tmp_path, gemini.to_sse(gemini.encode_stream(run)))
    back = [p.code_execution_result for r in sdk for p in r.candidates[0].content.parts or []]
    back = [b for b in back if b is not None]
    assert [(b.outcome, b.output or "") for b in back] == [("OUTCOME_DEADLINE_EXCEEDED", "")]
    assert _dump(_run(sdk)) == _dump(run)


def test_a_bare_turn_in_chunk_form_still_sends_its_call(tmp_path: Path) -> None:
    # AG-UI: a TOOL_CALL_CHUNK stream ends implicitly (here: at the end of the turn).
    turn = [
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "On it."},
        {
            "type": "TOOL_CALL_CHUNK",
            "toolCallId": "c1",
            "toolCallName": "get",
            "parentMessageId": "m1",
            "delta": '{"q":',
        },
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "delta": "1}"},
    ]
    enc = gemini.Encoder()
    with _no_warning():
        chunks = [c for e in turn for c in enc.feed(e)] + enc.close()
    assert enc.losses == []
    sdk = sdk_parse_sse(tmp_path, gemini.to_sse(chunks))
    parts = [p for r in sdk for p in r.candidates[0].content.parts or []]
    assert [p.text for p in parts if p.text] == ["On it."]
    assert [
        (p.function_call.id, p.function_call.name, p.function_call.args)
        for p in parts
        if p.function_call
    ] == [("c1", "get", {"q": 1})]
    assert {r.response_id for r in sdk} == {"m1"}


def test_thoughts_are_sent_even_when_no_message_names_the_turn(tmp_path: Path) -> None:
    thinking = [
        {"type": "REASONING_START", "messageId": "r1"},
        {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "Let me think."},
        {"type": "REASONING_MESSAGE_END", "messageId": "r1"},
        {"type": "REASONING_END", "messageId": "r1"},
    ]
    run = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}, *thinking]
    finished = list(
        gemini.encode_stream([*run, {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}])
    )
    sdk = sdk_parse_sse(tmp_path, gemini.to_sse(finished))
    thoughts = [p.text for r in sdk for p in r.candidates[0].content.parts or [] if p.thought]
    assert thoughts == ["Let me think."]
    failed = list(
        gemini.encode_stream([*run, {"type": "RUN_ERROR", "message": "boom", "code": "INTERNAL"}])
    )
    assert [c["candidates"][0]["content"]["parts"] for c in failed[:-1]] == [
        [{"text": "Let me think.", "thought": True}]
    ]
    assert failed[-1]["error"]["message"] == "boom"
