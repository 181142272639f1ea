"""Request shapes Gemini takes beyond the canonical one (issue 36): decoded, never written.

A popular R client sends ``systemInstruction.parts`` as one object, and Gemini answers 200;
Google's JSON reader takes one value for a repeated field, so the same holds for
``contents``, ``parts``, ``tools``, ``functionDeclarations`` and ``functionResponse.parts``.
The SDK (kwargs) also takes text for a content or a part list. Each loose body decodes to
the same history as its canonical twin, and ``encode_request`` writes the canonical shape,
which google-genai turns into the wire body.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from _gemini_sdk import sdk_wire_request
from lenient import changed, history

from toolwire.adapters.gemini import decode_request, encode_request
from toolwire.errors import VendorDataError
from toolwire.losses import ContentLossWarning

CANONICAL: dict[str, Any] = {
    "systemInstruction": {"parts": [{"text": "Answer briefly."}]},
    "contents": [
        {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
        {
            "role": "model",
            "parts": [{"functionCall": {"id": "fc-1", "name": "get_weather", "args": {"c": "P"}}}],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "fc-1",
                        "name": "get_weather",
                        "response": {"output": "18C"},
                        "parts": [
                            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
                        ],
                    }
                }
            ],
        },
    ],
    "tools": [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "Weather of a city",
                    "parameters": {"type": "object", "properties": {"c": {"type": "string"}}},
                }
            ]
        }
    ],
}


def loose(**changes: Any) -> dict[str, Any]:
    """CANONICAL with each change (``contents__0__parts``: the path, ``__`` for dots)."""
    body = CANONICAL
    for path, value in changes.items():
        body = changed(body, path.replace("__", "."), value)
    return copy.deepcopy(body)


ONE = CANONICAL["contents"]


@pytest.mark.parametrize(
    "body",
    [
        loose(systemInstruction={"parts": {"text": "Answer briefly."}}),
        loose(systemInstruction={"role": "system", "parts": {"text": "Answer briefly."}}),
        loose(systemInstruction="Answer briefly."),
        loose(systemInstruction={"text": "Answer briefly."}),
        loose(contents__0__parts={"text": "Weather in Paris?"}),
        loose(contents__0__parts="Weather in Paris?"),
        loose(contents__1__parts=ONE[1]["parts"][0]),
        loose(contents__2__parts=ONE[2]["parts"][0]),
        loose(
            contents__2__parts__0__functionResponse__parts=ONE[2]["parts"][0]["functionResponse"][
                "parts"
            ][0]
        ),
        loose(tools=CANONICAL["tools"][0]),
        loose(tools__0__functionDeclarations=CANONICAL["tools"][0]["functionDeclarations"][0]),
    ],
    ids=[
        "system-parts-one-object",
        "system-content-with-role",
        "system-text",
        "system-one-part",
        "user-parts-one-object",
        "user-parts-text",
        "model-parts-one-object",
        "response-parts-one-object",
        "function-response-parts-one-object",
        "tools-one-object",
        "declarations-one-object",
    ],
)
def test_a_loose_body_decodes_as_its_canonical_twin(body: dict[str, Any]) -> None:
    assert history(decode_request, body) == history(decode_request, CANONICAL)
    ri = decode_request(body, thread_id="t", run_id="r")
    assert [t.name for t in ri.tools] == ["get_weather"]


def test_one_content_for_contents_is_a_one_turn_history() -> None:
    one = {"contents": {"role": "user", "parts": {"text": "hi"}}}
    canonical = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    assert history(decode_request, one) == history(decode_request, canonical)


def test_the_encoder_writes_the_canonical_shape_the_sdk_sends() -> None:
    ri = decode_request(
        loose(
            systemInstruction={"parts": {"text": "Answer briefly."}},
            contents__0__parts={"text": "Weather in Paris?"},
        ),
        thread_id="t",
        run_id="r",
    )
    # the loose body's call has no thought signature: encoding it says what was sent instead
    with pytest.warns(ContentLossWarning, match="thought-signature-missing.*skip_thought_sig"):
        kwargs = encode_request(ri, model="gemini-3-flash")
    wire = sdk_wire_request(dict(kwargs))
    assert isinstance(wire["systemInstruction"]["parts"], list)
    assert wire["systemInstruction"]["parts"][0]["text"] == "Answer briefly."
    assert all(isinstance(c["parts"], list) for c in wire["contents"])
    assert wire["contents"][0]["parts"] == [{"text": "Weather in Paris?"}]


@pytest.mark.parametrize(
    "body,where",
    [
        (loose(systemInstruction={"parts": 7}), "request.systemInstruction.parts"),
        (loose(contents__0__parts=7), r"request.contents\[0\].parts"),
        (loose(tools=7), "request.tools"),
    ],
)
def test_a_shape_gemini_does_not_take_is_still_refused_by_name(body: Any, where: str) -> None:
    with pytest.raises(VendorDataError, match=where + ": expected .*list or an object, got int"):
        decode_request(body)
