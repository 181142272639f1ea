"""Our hand-built cassettes (cassettes/gemini/): each parsed by google-genai, then decoded.

Expected values come from the cassette text and from the SDK's own parse, never from the
adapter. The cases are the ones the recorded corpus lacks (ADAPTERS.md, tests 2).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from _gemini_project import b64, calls_of, text_of_stream
from _gemini_sdk import OWN, sdk_responses
from ag_ui.core import AssistantMessage, ReasoningMessage, ToolMessage
from google.genai import errors as genai_errors

from toolwire.adapters import gemini
from toolwire.protocol import RESULT_ERROR_KEY, StreamMachine, frame_run
from toolwire.recordings import Exchange
from toolwire.testing.recording_cache import recording

CASSETTES = sorted(OWN.glob("*.yaml"))


def _load(name: str) -> tuple[Path, Exchange]:
    path = OWN / name
    return path, recording(path)[0]


def _run(chunks: Any) -> tuple[list[Any], StreamMachine]:
    machine = StreamMachine()
    events = list(frame_run(gemini.Decoder(), chunks, thread_id="t", run_id="r", machine=machine))
    return events, machine


def _recorded_chunks(ex: Exchange) -> list[dict[str, Any]]:
    """The data: payloads as the cassette spells them (parsed here with json, not the adapter)."""
    body = ex.response_body.decode("utf-8")
    return [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]


def test_every_cassette_is_a_gemini_stream() -> None:
    # each records one streamGenerateContent call answered with SSE data: lines of JSON
    for path in CASSETTES:
        (ex,) = recording(path)
        assert ":streamGenerateContent" in ex.uri and "alt=sse" in ex.uri, path.name
        assert ex.is_sse, path.name
        chunks = _recorded_chunks(ex)
        assert chunks, path.name
        assert all(isinstance(c, dict) for c in chunks), path.name
    assert {p.name for p in CASSETTES} >= {
        "gemini3_parallel_calls_signature.yaml",
        "vertex_partial_args.yaml",
        "code_execution.yaml",
        "malformed_function_call.yaml",
        "gemini3_function_response_media.yaml",
        "truncated.yaml",
        "stream_error.yaml",
        "grounding.yaml",
    }


@pytest.mark.parametrize(
    "path", [p for p in CASSETTES if p.name != "stream_error.yaml"], ids=lambda p: p.stem
)
def test_sdk_parses_the_cassette_and_its_objects_decode_like_the_bytes(path: Path) -> None:
    ex = recording(path)[0]
    sdk = sdk_responses(path, ex)
    assert len(sdk) == len(_recorded_chunks(ex))
    from_sdk, _ = _run(sdk)
    from_bytes, _ = _run(gemini.sse_chunks(ex.response_body))

    # google-genai's Gemini API parse drops a candidate's finishMessage, so a RUN_ERROR built
    # from SDK objects can only say the finish reason; everything else must be identical.
    def view(e: Any) -> Any:
        return e.model_dump(exclude={"message"} if e.type.value == "RUN_ERROR" else None)

    assert [view(e) for e in from_sdk] == [view(e) for e in from_bytes]


def test_gemini3_parallel_calls_keep_ids_args_and_the_signature() -> None:
    path, ex = _load("gemini3_parallel_calls_signature.yaml")
    sdk = sdk_responses(path, ex)
    events, machine = _run(sdk)
    recorded = [p for c in _recorded_chunks(ex) for p in c["candidates"][0]["content"]["parts"]]
    rec_calls = [p["functionCall"] for p in recorded if "functionCall" in p]
    assert len(rec_calls) == 4
    expected = [
        (c["id"], c["name"], json.dumps(c["args"], separators=(",", ":"), ensure_ascii=False))
        for c in rec_calls
    ]
    assert calls_of(events) == expected
    starts = [e for e in events if e.type.value == "TOOL_CALL_START"]
    assert {e.parent_message_id for e in starts} == {sdk[0].response_id}
    # the signature rides on the first call only, as recorded
    sdk_sig = sdk[3].candidates[0].content.parts[0].thought_signature
    enc = [e for e in events if e.type.value == "REASONING_ENCRYPTED_VALUE"]
    assert [
        (e.subtype, e.entity_id, e.encrypted_value) for e in enc if e.subtype == "tool-call"
    ] == [("tool-call", "fc-paris", b64(sdk_sig))]
    thought_text = "".join(
        p.text for r in sdk for p in r.candidates[0].content.parts if p.thought and p.text
    )
    reasoning = [m for m in machine.messages if isinstance(m, ReasoningMessage)]
    assert [m.content for m in reasoning] == [thought_text]
    assert reasoning[0].encrypted_value == b64(
        sdk[1].candidates[0].content.parts[0].thought_signature
    )
    assistant = [m for m in machine.messages if isinstance(m, AssistantMessage)]
    assert len(assistant) == 1
    assert assistant[0].content == sdk[2].candidates[0].content.parts[0].text
    assert [c.id for c in assistant[0].tool_calls or []] == [c["id"] for c in rec_calls]
    assert (assistant[0].tool_calls or [])[0].encrypted_value == b64(sdk_sig)
    usage = events[-1].usage[0]
    meta = sdk[-1].usage_metadata
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (
        meta.prompt_token_count,
        meta.candidates_token_count + meta.thoughts_token_count,
        meta.total_token_count,
    )
    assert usage.cached_input_tokens == meta.cached_content_token_count
    assert events[-1].outcome.pending_tool_call_ids == [c["id"] for c in rec_calls]


def _assemble(pieces: list[Any]) -> dict[str, Any]:
    """The final arguments from SDK PartialArg objects, built the plain way (a test oracle)."""
    root: dict[str, Any] = {}
    open_string: str | None = None
    for pa in pieces:
        keys: list[Any] = []
        for tok in pa.json_path[1:].replace("[", ".[").split("."):
            if tok:
                keys.append(int(tok[1:-1]) if tok.startswith("[") else tok)
        node: Any = root
        for k, nxt in itertools.pairwise(keys):
            fresh: Any = [] if isinstance(nxt, int) else {}
            if isinstance(node, list):
                if k == len(node):
                    node.append(fresh)
                node = node[k]
            else:
                node = node.setdefault(k, fresh)
        leaf = keys[-1]
        if pa.string_value is not None:
            value: Any = pa.string_value
            if open_string == pa.json_path:
                value = node[leaf] + value
            open_string = pa.json_path if pa.will_continue else None
        elif pa.number_value is not None:
            n = pa.number_value
            value = int(n) if float(n).is_integer() else n
        elif pa.bool_value is not None:
            value = pa.bool_value
        else:
            value = None
        if isinstance(node, list):
            if leaf == len(node):
                node.append(value)
            else:
                node[leaf] = value
        else:
            node[leaf] = value
    return root


def test_vertex_partial_args_stream_as_exact_json_prefixes() -> None:
    path, ex = _load("vertex_partial_args.yaml")
    sdk = sdk_responses(path, ex)
    # group the SDK's partial args per call, as the cassette orders them
    per_call: list[list[Any]] = []
    for r in sdk:
        fc = r.candidates[0].content.parts[0].function_call
        if fc.name and fc.will_continue:
            per_call.append([])
        per_call[-1].extend(fc.partial_args or [])
    decoder = gemini.Decoder()
    progress: list[list[Any]] = [decoder.feed(r) for r in sdk]
    events = [e for chunk in progress for e in chunk] + decoder.close()
    calls = calls_of(events)
    assert [(c[0], c[1]) for c in calls] == [("fc-trip", "plan_trip"), ("fc-note", "save_note")]
    for (_, _, text), pieces in zip(calls, per_call, strict=True):
        expected = json.dumps(_assemble(pieces), separators=(",", ":"), ensure_ascii=False)
        assert text == expected
    assert '"nights":3,' in calls[0][2]  # the SDK holds 3.0; JSON keeps the integer form
    # arguments flow while the call streams: text is out after every chunk with pieces
    for k in range(1, 5):
        assert any(e.type.value == "TOOL_CALL_ARGS" for e in progress[k])
    assert [e.type.value for e in progress[5]] == ["TOOL_CALL_ARGS", "TOOL_CALL_END"]
    deltas = [e.delta for e in events if e.type.value == "TOOL_CALL_ARGS"]
    assert all(deltas)
    sig = sdk[0].candidates[0].content.parts[0].thought_signature
    enc = [e for e in events if e.type.value == "REASONING_ENCRYPTED_VALUE"]
    assert [(e.entity_id, e.encrypted_value) for e in enc] == [("fc-trip", b64(sig))]


def test_code_execution_becomes_calls_with_results() -> None:
    path, ex = _load("code_execution.yaml")
    sdk = sdk_responses(path, ex)
    events, machine = _run(sdk)
    codes = [
        p.executable_code for r in sdk for p in r.candidates[0].content.parts if p.executable_code
    ]
    results = [
        p.code_execution_result
        for r in sdk
        for p in r.candidates[0].content.parts
        if p.code_execution_result
    ]
    calls = calls_of(events)
    assert [c[1] for c in calls] == ["code_execution", "code_execution"]
    assert [json.loads(c[2]) for c in calls] == [
        {"language": c.language.value, "code": c.code} for c in codes
    ]
    got = [e for e in events if e.type.value == "TOOL_CALL_RESULT"]
    assert [(e.tool_call_id, e.content) for e in got] == [
        (calls[0][0], results[0].output),
        (calls[1][0], results[1].output),
    ]
    tools = [m for m in machine.messages if isinstance(m, ToolMessage)]
    assert tools[0].error is None
    assert tools[1].error == results[1].output  # OUTCOME_FAILED reaches the history as error
    assert RESULT_ERROR_KEY in (got[1].metadata or {})
    assert text_of_stream(events) == "".join(
        p.text for r in sdk for p in r.candidates[0].content.parts if p.text
    )
    assert events[-1].type.value == "RUN_FINISHED"
    assert events[-1].outcome.pending_tool_call_ids is None  # the vendor ran them itself


def test_malformed_function_call_is_an_error_not_a_silent_stop() -> None:
    path, ex = _load("malformed_function_call.yaml")
    sdk = sdk_responses(path, ex)
    events, _ = _run(gemini.sse_chunks(ex.response_body))
    last = events[-1]
    assert last.type.value == "RUN_ERROR"
    assert last.code == sdk[-1].candidates[0].finish_reason.value == "MALFORMED_FUNCTION_CALL"
    assert _recorded_chunks(ex)[-1]["candidates"][0]["finishMessage"] in last.message
    assert _run(sdk)[0][-1].code == "MALFORMED_FUNCTION_CALL"
    assert text_of_stream(events) == sdk[0].candidates[0].content.parts[0].text


def test_truncated_stream_is_reported_never_success() -> None:
    path, ex = _load("truncated.yaml")
    sdk = sdk_responses(path, ex)
    assert all(r.candidates[0].finish_reason is None for r in sdk)
    events, _ = _run(sdk)
    assert events[-1].type.value == "RUN_ERROR"
    assert events[-1].code == "truncated"
    assert calls_of(events)[0][1] == sdk[0].candidates[0].content.parts[0].function_call.name


def test_in_stream_error_surfaces_with_the_vendor_type_and_message() -> None:
    path, ex = _load("stream_error.yaml")
    with pytest.raises(genai_errors.ServerError) as info:
        sdk_responses(path, ex)
    events, _ = _run(gemini.sse_chunks(ex.response_body))
    assert events[-1].type.value == "RUN_ERROR"
    assert events[-1].code == info.value.status == "UNAVAILABLE"
    assert info.value.message in events[-1].message
    assert (
        text_of_stream(events)
        == _recorded_chunks(ex)[0]["candidates"][0]["content"]["parts"][0]["text"]
    )


def test_grounding_becomes_a_search_call_with_sources_in_part_metadata() -> None:
    path, ex = _load("grounding.yaml")
    sdk = sdk_responses(path, ex)
    events, _ = _run(sdk)
    grounding = sdk[-1].candidates[0].grounding_metadata
    calls = calls_of(events)
    assert [c[1] for c in calls] == ["google_search"]
    assert json.loads(calls[0][2]) == {"queries": grounding.web_search_queries}
    (result,) = [e for e in events if e.type.value == "TOOL_CALL_RESULT"]
    assert [(p.text, p.metadata["uri"]) for p in result.content] == [
        (c.web.title, c.web.uri) for c in grounding.grounding_chunks
    ]
    recorded = _recorded_chunks(ex)[-1]["candidates"][0]["groundingMetadata"]
    assert result.metadata["gemini.groundingMetadata"] == recorded
    usage = events[-1].usage[0]
    meta = sdk[-1].usage_metadata
    assert usage.input_tokens == meta.prompt_token_count + meta.tool_use_prompt_token_count
