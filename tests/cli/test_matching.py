"""Request matching for replays: method, path, query without credentials, JSON body as data."""

from __future__ import annotations

import json

from toolwire.matching import first_difference, normalized_path, request_difference

URI = "https://api.anthropic.com/v1/messages"
BODY = {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}


def test_key_order_and_white_space_do_not_matter() -> None:
    reordered = json.dumps(dict(reversed(list(BODY.items()))), indent=4)
    assert request_difference("POST", URI, json.dumps(BODY), "post", URI, reordered) is None


def test_a_changed_nested_value_is_named_by_its_path() -> None:
    live = json.loads(json.dumps(BODY))
    live["messages"][0]["content"][0]["text"] = "hello"
    why = request_difference("POST", URI, json.dumps(BODY), "POST", URI, json.dumps(live))
    assert why == 'body.messages[0].content[0].text: recorded "hi", now "hello"'


def test_missing_and_extra_keys_and_list_lengths_are_named() -> None:
    assert first_difference({"a": 1, "b": 2}, {"a": 1}) == "body.b: recorded 2, missing now"
    assert first_difference({"a": 1}, {"a": 1, "t": 0.5}) == "body.t: not recorded, now 0.5"
    assert first_difference({"m": [1, 2]}, {"m": [1]}) == "body.m: recorded 2 items, now 1"
    assert first_difference({"n": 1}, {"n": 1.0}) is None
    assert first_difference({"n": True}, {"n": 1}) == "body.n: recorded true, now 1"


def test_method_path_and_query_are_compared_but_credentials_are_not() -> None:
    gem = "https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent"
    live = gem.replace("/v1beta/", "/v1/")
    assert (
        request_difference(
            "POST", gem + "?alt=sse&key=AIzaOLD", None, "POST", live + "?key=AIzaNEW&alt=sse", None
        )
        is None
    )
    assert request_difference("GET", URI, None, "POST", URI, None) == (
        "method: recorded GET, now POST"
    )
    why = request_difference("POST", gem + "?alt=sse", None, "POST", gem, None)
    assert why is not None and why.startswith("query:") and "AIza" not in why
    assert normalized_path("/v1beta1/projects/p") == "/vX/projects/p"


def test_ignored_body_keys_and_non_json_bodies() -> None:
    a = json.dumps({**BODY, "stream": True})
    assert (
        request_difference(
            "POST", URI, a, "POST", URI, json.dumps(BODY), ignore_body_keys=["stream"]
        )
        is None
    )
    assert request_difference("POST", URI, b"\x00raw", "POST", URI, b"\x00raw") is None
    assert request_difference("POST", URI, "a=1", "POST", URI, "a=2") == (
        "body: the bodies differ (not JSON)"
    )


def test_deep_nesting_does_not_exhaust_the_stack() -> None:
    deep_a: object = 0
    deep_b: object = 1
    for _ in range(5000):
        deep_a, deep_b = [deep_a], [deep_b]
    why = first_difference(deep_a, deep_b)
    assert why is not None and why.endswith("recorded 0, now 1")
