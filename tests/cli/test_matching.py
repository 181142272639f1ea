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


# ------------------------------------------------ every difference, one notion of the same


def test_every_differing_field_is_listed_in_document_order() -> None:
    from toolwire.matching import differences

    recorded = {"model": "a", "thinking": {"budget_tokens": 1024}, "m": [1, 2, 3], "x": 1}
    live = {"model": "b", "m": [1, 9], "x": 1, "extra": True}
    assert differences(recorded, live) == [
        'body.model: recorded "a", now "b"',
        'body.thinking: recorded {"budget_tokens": 1024}, missing now',
        "body.m: recorded 3 items, now 2",
        "body.m[1]: recorded 2, now 9",
        "body.extra: not recorded, now true",
    ]
    assert differences(recorded, recorded) == []


def _anthropic(content: object, **extra: object) -> dict[str, object]:
    return {
        "model": "claude-x",
        "max_tokens": 64,
        **extra,
        "messages": [{"role": "user", "content": content}],
    }


def test_a_string_message_is_the_text_block_toolwire_sends_and_the_rest_is_all_named() -> None:
    """The issue's three misses in a row: one miss now, naming the two fixable fields only."""
    from toolwire.matching import recorded

    rec = recorded("POST", URI, json.dumps(_anthropic("Hi", thinking={"type": "enabled"})))
    live = _anthropic([{"type": "text", "text": "Hi"}], model="other")
    assert rec.differences("POST", URI, json.dumps(live)) == [
        'body.model: recorded "claude-x", now "other"',
        'body.thinking: recorded {"type": "enabled"}, missing now',
    ]
    live = _anthropic([{"type": "text", "text": "Hi"}], thinking={"type": "enabled"})
    assert rec.differences("POST", URI, json.dumps(live)) == []
    assert rec.differences("POST", URI, _anthropic("Hi", thinking={"type": "enabled"})) == []
    other = _anthropic([{"type": "text", "text": "Bye"}], thinking={"type": "enabled"})
    assert rec.differences("POST", URI, other) == [
        'body.messages[0].content[0].text: recorded "Hi", now "Bye"'
    ]


def test_the_cassette_kit_and_the_server_replay_share_the_notion() -> None:
    """The same pair of requests: equal for both, and the same reasons when not."""
    from pathlib import Path

    from toolwire.server._replay import index_recordings
    from toolwire.testing.vcr import request_matchers

    root = Path(__file__).resolve().parents[2] / "cassettes" / "anthropic"
    turn = next(t for t in index_recordings([root]) if "frontend_tool" in t.source)
    body = dict(turn.exchange.request_body)
    sent = {
        **body,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": body["messages"][0]["content"]}]}
        ],
    }

    class Req:
        def __init__(self, b: object) -> None:
            self.method, self.uri, self.body = "POST", turn.exchange.uri, json.dumps(b)

    tw_body = request_matchers()["tw_body"]
    tw_body(Req(sent), Req(body))  # the kit: no AssertionError
    conversation = {"messages": sent["messages"]}
    assert turn.difference("POST", turn.exchange.uri, conversation) is None  # the server
    changed = {"messages": [{"role": "user", "content": [{"type": "text", "text": "pink"}]}]}
    server_says = turn.difference("POST", turn.exchange.uri, changed)
    try:
        tw_body(Req({**sent, **changed}), Req(body))
    except AssertionError as exc:
        kit_says = str(exc)
    else:
        raise AssertionError("the kit matched a changed conversation")
    assert (
        server_says
        == kit_says
        == (
            'body.messages[0].content[0].text: recorded "Please make my page background dark '
            'slate.", now "pink"'
        )
    )
