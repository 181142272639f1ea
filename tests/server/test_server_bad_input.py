"""Every toolwire error before the stream is a 4xx with a JSON reason (issue 35, item 4).

A body nested a few hundred levels deep got a plain-text 500 with a traceback: the
nesting cap is a ``toolwire.errors`` error like any other, and so is everything else the
body reader and ``as_run_input`` raise.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _serve import asgi_client, run_input

from toolwire.server import create_app

JSON = {"content-type": "application/json"}


def _nest(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "1" + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def _body(where: str, depth: int, kind: str) -> str:
    base = run_input([{"id": "u1", "role": "user", "content": "hello"}])
    deep = _nest(depth, kind)
    text = json.dumps(base)
    if where == "state":
        return text.replace('"state": {}', f'"state": {{"x": {deep}}}')
    if where == "forwardedProps":
        return text.replace('"forwardedProps": {}', f'"forwardedProps": {{"x": {deep}}}')
    if where == "message":
        return text.replace('"content": "hello"', f'"content": "hello", "x": {deep}')
    if where == "tool":
        tool = f'{{"name": "t", "description": "d", "parameters": {deep}}}'
        return text.replace('"tools": []', f'"tools": [{tool}]')
    return deep  # the whole body


async def _post(body: str | bytes) -> Any:
    async with asgi_client(create_app()) as client:
        return await client.post("/agents/replay", content=body, headers=JSON)


@pytest.mark.parametrize("where", ["state", "forwardedProps", "message", "tool", "body"])
@pytest.mark.parametrize("depth", [250, 400, 999, 1200, 100_000])
@pytest.mark.parametrize("kind", ["list", "object"])
async def test_a_deep_body_is_a_4xx_json_reason(where: str, depth: int, kind: str) -> None:
    r = await _post(_body(where, depth, kind))
    assert 400 <= r.status_code < 500, r.text[:300]
    assert r.headers["content-type"] == "application/json"
    assert "nested deeper than" in r.json()["reason"] or "not JSON" in r.json()["reason"]
    assert "Traceback" not in r.text


async def test_shallow_nesting_still_runs() -> None:
    r = await _post(_body("state", 150, "object"))
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b'{"threadId": "\xff"}', "not_json"),  # not UTF-8
        (b"", "not_json"),
        (b"NaN", "not_run_agent_input"),
        (b'"just text"', "not_run_agent_input"),
        (json.dumps({**run_input([]), "messages": 5}).encode(), "not_run_agent_input"),
        (
            json.dumps({**run_input([]), "messages": [{"id": "m", "role": "wizard"}]}).encode(),
            "not_run_agent_input",
        ),
    ],
)
async def test_other_bad_bodies_are_4xx_json(body: bytes, error: str) -> None:
    r = await _post(body)
    assert 400 <= r.status_code < 500 and r.json()["error"] == error, r.text[:300]
