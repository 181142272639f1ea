"""Gemini's request rules as the cross-vendor tests check them (``tests/cross/vendor_rules``
loads this file): written from the API reference, never read from toolwire.

* a ``FunctionCall.id`` is any non-empty string ("the client ... return the response with the
  matching id");
* the model's calls are answered by the next (user) content, one ``functionResponse`` per call
  in call order (names, and ids when the calls have ids); ids unique.
"""

from __future__ import annotations

from typing import Any

from rule_kit import check_id, unique

MODEL = "gemini-3-pro-preview"
#: the capability family row (``adapters/gemini/capabilities.json``) that covers ``MODEL``
FAMILY = "gemini-3"
#: where the body holds the conversation
CONVERSATION = "contents"
ID_RULE: tuple[int | None, str | None] = (None, None)


def _check_id(call_id: Any) -> None:
    check_id("gemini", ID_RULE, call_id)


def _unique(ids: list[str]) -> None:
    unique("gemini", ids)


def _field(part: dict[str, Any], snake: str) -> Any:
    camel = snake.split("_")[0] + "".join(w.title() for w in snake.split("_")[1:])
    return part.get(snake, part.get(camel))


def check(body: dict[str, Any]) -> list[str]:
    contents = body["contents"]
    answered: list[str] = []
    for i, c in enumerate(contents):
        parts = c.get("parts", [])
        calls = [_field(p, "function_call") for p in parts if _field(p, "function_call")]
        if c.get("role") == "user" and any(_field(p, "function_response") for p in parts):
            prev = contents[i - 1] if i > 0 else {}
            assert prev.get("role") == "model", "function responses follow the model's calls"
        if c.get("role") != "model" or not calls:
            continue
        nxt = contents[i + 1]
        assert nxt.get("role") == "user"
        responses = [
            _field(p, "function_response") for p in nxt["parts"] if _field(p, "function_response")
        ]
        # as many responses as calls, in call order (names, and ids when the calls have ids)
        assert [r["name"] for r in responses] == [fc["name"] for fc in calls]
        assert [r.get("id") for r in responses] == [fc.get("id") for fc in calls]
        for n, fc in enumerate(calls):
            if fc.get("id") is not None:
                _check_id(fc["id"])
            answered.append(fc.get("id") or f"{i}:{n}")
    _unique(answered)
    return answered


def stream_ids(chunks: list[dict[str, Any]]) -> list[str]:
    """The call ids of a stream's chunks (each candidate part's ``functionCall.id``)."""
    return [
        p["functionCall"]["id"]
        for c in chunks
        for cand in c.get("candidates", [])
        for p in cand.get("content", {}).get("parts", [])
        if "functionCall" in p
    ]


def sdk_accepts(body: dict[str, Any]) -> None:
    """The body is ``generate_content`` keyword arguments; google-genai's models forbid
    unknown fields, so each validating is the SDK taking it."""
    import inspect

    from google.genai import models, types

    params = set(inspect.signature(models.Models.generate_content).parameters) - {"self"}
    assert set(body) <= params
    for content in body["contents"]:
        types.Content.model_validate(content)
    types.GenerateContentConfig.model_validate(body.get("config") or {})
