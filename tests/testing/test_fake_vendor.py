"""FakeVendor: a real loopback HTTP/1.1 server that plays scripted replies, for SDK tests."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import anthropic
import httpx2
import pytest

from toolwire.testing.fake_vendor import FakeVendor, Reply, replies_from_cassette, split_events
from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes"
KEY = "sk-ant-fake-0000"


def test_binds_loopback_on_an_ephemeral_port_and_records_requests() -> None:
    with FakeVendor([Reply(chunks=[b'{"ok":', b" true}"])]) as fv:
        assert fv.base_url.startswith("http://127.0.0.1:")
        port = int(fv.base_url.rsplit(":", 1)[1])
        assert port > 0
        r = httpx2.post(
            fv.base_url + "/v1/x?alt=sse", content=b'{"a":1}', headers={"X-Thing": "Yes"}
        )
        assert r.status_code == 200
        assert r.json() == {"ok": True}
        assert r.headers["content-type"] == "application/json"
        assert r.headers["transfer-encoding"] == "chunked"
    [seen] = fv.requests
    assert (seen.method, seen.path, seen.body) == ("POST", "/v1/x?alt=sse", b'{"a":1}')
    assert seen.headers["x-thing"] == "Yes"
    assert seen.outcome == "complete"


def test_stops_after_the_script_is_used_up() -> None:
    with FakeVendor([Reply(status=429, headers={"retry-after": "0"}), Reply()]) as fv:
        with httpx2.Client() as c:
            assert c.get(fv.base_url + "/a").status_code == 429
            assert c.get(fv.base_url + "/b").status_code == 200
        assert fv.wait_idle(5)
        with pytest.raises(httpx2.ConnectError):  # refused: nothing listens any more
            httpx2.get(fv.base_url + "/c", timeout=2)
    assert [r.path for r in fv.requests] == ["/a", "/b"]


def test_stops_after_its_timeout() -> None:
    with FakeVendor([Reply(), Reply()], timeout=0.3) as fv:
        began = time.monotonic()
        assert fv.wait_idle(5)
        assert time.monotonic() - began >= 0.25  # it was the timeout that stopped it
        with pytest.raises(httpx2.ConnectError):  # refused: nothing listens any more
            httpx2.get(fv.base_url + "/late", timeout=2)
    assert fv.remaining == 2


def test_a_status_is_sent_with_its_headers_and_body() -> None:
    body = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    with FakeVendor([Reply(status=529, headers={"x-should-retry": "true"}, chunks=[body])]) as fv:
        r = httpx2.post(fv.base_url + "/v1/messages")
    assert r.status_code == 529
    assert r.headers["x-should-retry"] == "true"
    assert r.content == body


def test_reset_after_drops_the_connection_mid_body() -> None:
    chunks = [b"data: 1\n\n", b"data: 2\n\n", b"data: 3\n\n"]
    with FakeVendor([Reply(chunks=chunks, reset_after=2)]) as fv:
        got = []
        with pytest.raises(httpx2.TransportError), httpx2.stream("GET", fv.base_url) as r:
            for piece in r.iter_raw():
                got.append(piece)
    assert b"".join(got) == b"data: 1\n\ndata: 2\n\n"
    assert fv.requests[0].outcome == "reset"
    assert fv.requests[0].chunks_sent == 2


def test_delay_trickles_the_chunks_one_by_one() -> None:
    chunks = [b"data: %d\n\n" % i for i in range(4)]
    with FakeVendor([Reply(chunks=chunks, delay=0.05)]) as fv:
        arrivals = []
        with httpx2.stream("GET", fv.base_url) as r:
            assert r.headers["content-type"] == "text/event-stream"
            for piece in r.iter_raw():
                arrivals.append((time.monotonic(), piece))
    assert b"".join(p for _, p in arrivals) == b"".join(chunks)
    # it really streams: the first bytes arrive well before the last were written
    assert len(arrivals) >= 2
    assert arrivals[-1][0] - arrivals[0][0] >= 0.1


def test_eager_chunks_go_out_at_once_before_the_trickle() -> None:
    chunks = [b"data: %d\n\n" % i for i in range(4)]
    with FakeVendor([Reply(chunks=chunks, delay=10.0, eager=3)]) as fv:
        began = time.monotonic()
        got = b""
        with httpx2.stream("GET", fv.base_url) as r:
            for piece in r.iter_raw():
                got += piece
                if got == b"".join(chunks[:3]):
                    break
        took = time.monotonic() - began
        assert fv.wait_idle(5)
    assert took < 5.0  # the head did not wait for the 10 s delay
    assert (fv.requests[0].outcome, fv.requests[0].chunks_sent) == ("client_gone", 3)


def test_a_client_that_closes_early_is_seen() -> None:
    chunks = [b"data: %d\n\n" % i for i in range(50)]
    with FakeVendor([Reply(chunks=chunks, delay=0.02)]) as fv:
        with httpx2.stream("GET", fv.base_url) as r:
            next(r.iter_raw())
        fv.wait_idle(5)
    assert fv.requests[0].outcome == "client_gone"
    assert fv.requests[0].chunks_sent < 50


def test_a_request_beyond_the_script_gets_no_reply_and_is_recorded() -> None:
    with FakeVendor([Reply(chunks=[b"{}"])]) as fv:
        port = int(fv.base_url.rsplit(":", 1)[1])
        with (
            socket.create_connection(("127.0.0.1", port)) as first,
            socket.create_connection(("127.0.0.1", port)) as second,
        ):
            time.sleep(0.2)  # both accepted before the script runs out
            first.sendall(b"GET /1 HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = b""
            while not answer.endswith(b"0\r\n\r\n"):
                answer += first.recv(65536)
            assert answer.startswith(b"HTTP/1.1 200")
            second.sendall(b"GET /2 HTTP/1.1\r\nHost: x\r\n\r\n")
            with pytest.raises(ConnectionResetError):
                if not second.recv(65536):
                    raise ConnectionResetError
    assert [(r.path, r.outcome) for r in fv.requests] == [("/1", "complete"), ("/2", "unscripted")]


def test_split_events_keeps_every_byte() -> None:
    body = b"event: a\ndata: 1\n\nevent: b\r\ndata: 2\r\n\r\ndata: 3\n"
    pieces = split_events(body)
    assert b"".join(pieces) == body
    assert pieces == [b"event: a\ndata: 1\n\n", b"event: b\r\ndata: 2\r\n\r\n", b"data: 3\n"]


@pytest.mark.parametrize(
    "name",
    [
        "anthropic/thinking_tool_use_signature.yaml",
        "openai_chat/parallel_three_interleaved.yaml",
        "gemini/gemini3_parallel_calls_signature.yaml",
        "openai_responses/reasoning_parallel_calls.yaml",
    ],
)
def test_replies_from_cassette_replay_the_recorded_bytes(name: str) -> None:
    path = CASSETTES / name
    exchanges = recording(path)
    replies = replies_from_cassette(path)
    assert len(replies) == len(exchanges)
    with FakeVendor(replies) as fv, httpx2.Client() as c:
        for ex in exchanges:
            r = c.post(fv.base_url + "/replay")
            assert r.status_code == ex.status
            assert r.content == ex.response_body
            assert r.headers["content-type"] == ex.content_type


def test_replies_from_cassette_names_a_missing_file() -> None:
    from toolwire.errors import UnsupportedInput

    with pytest.raises(UnsupportedInput, match=r"nope\.yaml"):
        replies_from_cassette(CASSETTES / "nope.yaml")


def _anthropic_stream_reply() -> list[Reply]:
    return replies_from_cassette(CASSETTES / "anthropic/thinking_tool_use_signature.yaml")


def _sdk_events(stream: object) -> list[str]:
    return [ev.type for ev in stream]  # type: ignore[attr-defined]


def test_a_sync_sdk_client_streams_from_it() -> None:
    replies = _anthropic_stream_reply()
    with FakeVendor(replies) as fv:
        client = anthropic.Anthropic(api_key=KEY, base_url=fv.base_url, max_retries=0)
        with client.messages.stream(
            model="claude-sonnet-4-5", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            message = stream.get_final_message()
    assert fv.requests[0].path == "/v1/messages"
    assert any(KEY in value for value in fv.requests[0].headers.values())  # the SDK's auth
    assert message.stop_reason == "tool_use"
    assert any(b.type == "tool_use" for b in message.content)


async def test_an_async_sdk_client_streams_from_it() -> None:
    replies = _anthropic_stream_reply()
    with FakeVendor(replies) as fv:
        client = anthropic.AsyncAnthropic(api_key=KEY, base_url=fv.base_url, max_retries=0)
        stream = await client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=64,
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
        )
        types = [ev.type async for ev in stream]
    assert types[0] == "message_start"
    assert types[-1] == "message_stop"
    assert len(fv.requests) == 1
