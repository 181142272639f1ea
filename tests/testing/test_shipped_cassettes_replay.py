"""Every shipped model cassette replays through ``toolwire.run`` with the cassette kit.

What a user of docs/guide/cassettes.md does: the vendor's real SDK client, ``toolwire.run``
over the conversation the recording holds, inside the kit (record mode ``none``). Each
recorded turn's ``RunAgentInput`` is its recorded request read back (``decode_request``,
with the protocol version stated as the guide says); the options a ``RunAgentInput`` cannot
carry (``max_tokens``, ``thinking``, server tools) are passed as the agent would pass them.
The kit must find every turn (one notion of the same request, shared with the server's
replay) and the run must yield what ``toolwire decode`` makes of the recorded answer.

Gemini recordings are matched on method and path only: seven of the nine hold no request
body, and the two that do hold a hand-built one google-genai never sends (it writes inline
data as URL-safe base64 and always adds a ``generationConfig``), so their bodies cannot be
the SDK's; the run must still give the recorded turn.

Not run here, and why (each asserted below, so the list cannot grow unseen):
- whole-message (non-streamed) recordings: ``toolwire.run`` always streams, so no run sends
  their request; ``toolwire decode`` and ``replay(match="path")`` read them elsewhere;
- Asgard and Dialogflow recordings: those peers have no SDK client for ``toolwire.run``.

Bedrock (boto3, over urllib3), Cohere, Mistral and Ollama recordings replay too: vcrpy
stands in for the HTTP libraries all four SDKs use. Two of their recordings hold a hand-built
request the SDK never sends (``_HAND_BUILT_BODIES``, each with why): matched like Gemini's.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from ag_ui.core import PROTOCOL_VERSION, BaseEvent

import toolwire
from toolwire import adapters, matching
from toolwire.losses import held
from toolwire.protocol.sse import event_json
from toolwire.recordings import Exchange, frame_exchange, model_exchanges
from toolwire.testing.cassettes import CassetteKit

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes"
RUN_VENDORS = (
    "anthropic",
    "openai_chat",
    "openai_responses",
    "gemini",
    "bedrock",
    "cohere",
    "mistral",
    "ollama",
)

#: recordings whose hand-built request is not what the run sends through the SDK, matched on
#: method and path like Gemini's (see the module doc); each with why
_HAND_BUILT_BODIES = {
    # Bedrock's default tool choice, written out; a RunAgentInput has no tool choice to carry
    "bedrock/tool_result_media.yaml": "toolConfig.toolChoice",
    # mistralai's models write their defaults (a call's index, an assistant's prefix: false)
    "mistral/history_with_image.yaml": "tool_calls[0].index",
}

#: the SDKs (Stainless-built) whose calls take the body's other options as ``extra_body``
_EXTRA_BODY_SDKS = ("anthropic", "openai_chat", "openai_responses")

#: recordings whose requests hold no ``stream_options``, which ``toolwire.run`` always sends
#: to OpenAI Chat (the usage for RUN_FINISHED): hand-built before the driver asked for it
_NO_USAGE_ASKED = "stream_options"


def _exchanges(vendor: str, path: Path) -> list[Exchange]:
    return model_exchanges(adapters.get(vendor), path.read_bytes(), path.name)


def _streamed(vendor: str, ex: Exchange) -> bool:
    """The recorded answer is a stream (SSE, or the vendor's own framing: NDJSON, eventstream)."""
    streamed = adapters.get(vendor).is_streamed
    return ex.is_sse or (streamed is not None and streamed(ex))


def _cases() -> list[Any]:
    out = []
    for vendor in RUN_VENDORS:
        for path in sorted((CASSETTES / vendor).glob("*.yaml")):
            exchanges = _exchanges(vendor, path)
            if all(_streamed(vendor, ex) for ex in exchanges):
                out.append(pytest.param(vendor, path, id=f"{vendor}/{path.stem}"))
    return out


def _client(vendor: str, ex: Exchange) -> Any:
    """The vendor's real SDK client, pointed where the recording was made."""
    if vendor == "anthropic":
        import anthropic

        return anthropic.Anthropic(api_key="k", base_url=ex.uri.rsplit("/v1/messages", 1)[0])
    if vendor in ("openai_chat", "openai_responses"):
        import openai

        tail = "/chat/completions" if vendor == "openai_chat" else "/responses"
        return openai.OpenAI(api_key="k", base_url=ex.uri.rsplit(tail, 1)[0])
    if vendor == "bedrock":
        import boto3

        return boto3.client(
            "bedrock-runtime",
            region_name=ex.uri.split("bedrock-runtime.", 1)[1].split(".", 1)[0],
            aws_access_key_id="k",
            aws_secret_access_key="s",
        )
    if vendor == "cohere":
        import cohere

        return cohere.ClientV2(api_key="k", base_url=ex.uri.rsplit("/v2/chat", 1)[0])
    if vendor == "mistral":
        from mistralai.client import Mistral

        return Mistral(api_key="k", server_url=ex.uri.rsplit("/v1/chat/completions", 1)[0])
    if vendor == "ollama":
        import ollama

        return ollama.Client(host=ex.uri.rsplit("/api/chat", 1)[0])
    from google import genai
    from google.oauth2.credentials import Credentials

    if "aiplatform" in ex.uri:  # Vertex: project and location are in the recorded path
        parts = ex.uri.split("/")
        project, location = parts[parts.index("projects") + 1], parts[parts.index("locations") + 1]
        return genai.Client(
            vertexai=True, project=project, location=location, credentials=Credentials("t")
        )
    return genai.Client(api_key="k")


def _model(ex: Exchange) -> str:
    body = ex.request_body if isinstance(ex.request_body, dict) else {}
    if "model" in body:
        return str(body["model"])
    if "/converse-stream" in ex.uri:  # Bedrock: the model id, quoted, is in the path
        return unquote(ex.uri.split("/model/", 1)[1].rsplit("/converse-stream", 1)[0])
    return ex.uri.split("/models/", 1)[1].split(":", 1)[0]  # Gemini: the model is in the path


def _turn(vendor: str, ex: Exchange) -> tuple[Any, dict[str, Any]]:
    """The recorded turn as an agent would make it: its input and its request options."""
    adapter = adapters.get(vendor)
    body = ex.request_body
    if not isinstance(body, dict):  # a recording without its request: any conversation
        return {
            "threadId": "t",
            "runId": "r",
            "messages": [{"id": "u1", "role": "user", "content": "Go on."}],
            "tools": [],
            "context": [],
            "state": None,
            "forwardedProps": None,
            "protocolVersion": PROTOCOL_VERSION,
        }, {}
    with held():
        run_input = adapter.decode_request(body)
        written = adapter.encode_request(run_input, model=_model(ex))
    run_input = run_input.model_copy(update={"protocol_version": PROTOCOL_VERSION})
    keys = (*matching.conversation_keys(vendor), "model", "stream")
    options = {k: v for k, v in body.items() if k not in keys and written.get(k) != v}
    if vendor == "gemini":
        return run_input, {}
    if vendor in _EXTRA_BODY_SDKS:
        return run_input, ({"extra_body": options} if options else {})
    return run_input, options  # the other SDKs take the body's options as keywords


def _shape(events: list[BaseEvent]) -> list[Any]:
    """The events as JSON, the run's own frame (ids, input, usage bookkeeping) as its type."""
    out: list[Any] = []
    for e in events:
        d = json.loads(event_json(e))
        d.pop("timestamp", None)
        out.append(d["type"] if d["type"].startswith("RUN_") else d)
    return out


@pytest.mark.parametrize(("vendor", "path"), _cases())
def test_the_recorded_conversation_replays_through_toolwire_run(vendor: str, path: Path) -> None:
    kit = CassetteKit(CASSETTES)
    exchanges = _exchanges(vendor, path)
    options: dict[str, Any] = {}
    if vendor == "gemini" or f"{vendor}/{path.name}" in _HAND_BUILT_BODIES:  # see the module doc
        options["match_on"] = ["method", "tw_uri"]
    elif vendor == "openai_chat" and any(
        _NO_USAGE_ASKED not in ex.request_body for ex in exchanges
    ):
        options["ignore_body_keys"] = (_NO_USAGE_ASKED,)
    with kit(f"{vendor}/{path.name}", **options) as cassette:
        for n, ex in enumerate(exchanges):
            run_input, params = _turn(vendor, ex)
            with warnings.catch_warnings(record=True):  # the recording's own losses
                warnings.simplefilter("always")
                events = list(
                    toolwire.run(
                        _client(vendor, ex), run_input, model=_model(ex), vendor=vendor, **params
                    )
                )
            want = list(frame_exchange(adapters.get(vendor), ex, thread_id="t", run_id="r"))
            assert _shape(events) == _shape(want), f"turn {n}"
        assert cassette.all_played


def test_the_hand_built_bodies_differ_from_what_the_run_sends_as_stated() -> None:
    """Each recording matched on its path only is one the SDK's body would miss, for the
    stated reason: once it is re-recorded through the SDK, its entry goes."""
    from toolwire.errors import CassetteMiss

    for name, reason in _HAND_BUILT_BODIES.items():
        vendor = name.split("/", 1)[0]
        path = CASSETTES / name
        (ex,) = _exchanges(vendor, path)
        run_input, params = _turn(vendor, ex)
        with pytest.raises(CassetteMiss) as info, CassetteKit(CASSETTES)(name):
            with warnings.catch_warnings(record=True):  # the recording's own losses
                warnings.simplefilter("always")
                client = _client(vendor, ex)
                list(toolwire.run(client, run_input, model=_model(ex), vendor=vendor, **params))
        assert reason in info.value.reason, name


def test_only_whole_message_and_sdk_less_recordings_are_left_out() -> None:
    ran = {f"{v}/{p.name}" for v, p in (c.values for c in _cases())}
    shipped = {
        f"{d.name}/{p.name}" for d in CASSETTES.iterdir() if d.is_dir() for p in d.glob("*.yaml")
    }
    left = shipped - ran
    for name in sorted(left):
        vendor = name.split("/", 1)[0]
        if vendor in RUN_VENDORS:
            exchanges = _exchanges(vendor, CASSETTES / name)
            assert not all(_streamed(vendor, ex) for ex in exchanges), name
        else:
            assert vendor in ("asgard", "dialogflow"), name
    assert len(ran) >= 30


def test_a_miss_through_toolwire_run_names_every_differing_field_at_once() -> None:
    """The guide followed with a different model and no thinking: one miss says both (and
    not the user message, which the recording holds as a string and the run as a block)."""
    import anthropic

    from toolwire.errors import CassetteMiss

    name = "anthropic/thinking_tool_use_signature.yaml"
    (ex,) = _exchanges("anthropic", CASSETTES / name)
    run_input, _ = _turn("anthropic", ex)
    assert isinstance(ex.request_body["messages"][0]["content"], str)
    kit = CassetteKit(CASSETTES)
    with pytest.raises(CassetteMiss) as info, kit(name):
        client = anthropic.Anthropic(api_key="k", base_url="https://api.anthropic.com")
        events = list(toolwire.run(client, run_input, model="claude-other", max_tokens=1024))
        assert events[-1].type == "RUN_ERROR"
    reason = info.value.reason
    assert 'body.model: recorded "claude-sonnet-4-6", now "claude-other"' in reason
    assert "body.thinking: recorded" in reason
    assert "content" not in reason
