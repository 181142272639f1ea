"""Class 3 of issue 12 and the caps: hostile recordings cannot exhaust memory or hang."""

from __future__ import annotations

import gzip
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest
from ag_ui.core import RunStartedEvent, ToolCallArgsEvent, ToolCallStartEvent
from test_fuzz_harness import run_cli

from toolwire.adapters import anthropic
from toolwire.errors import LimitExceeded, UnsupportedInput
from toolwire.protocol import SSEParser, StreamMachine
from toolwire.protocol.limits import configure, limits
from toolwire.recordings import load_recording
from toolwire.testing.vcr import ParsedBodySerializer

# The classic "billion laughs": nine levels of nine aliases, under 400 bytes of YAML.
BOMB = "interactions:\n- response:\n   a0: &a0 [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n"
for level in range(1, 9):
    BOMB += f"   a{level}: &a{level} [{','.join([f'*a{level - 1}'] * 9)}]\n"
SELF = "interactions:\n- &loop\n  request: {uri: x}\n  response: {body: *loop}\n"


@pytest.fixture
def small_limits() -> Iterator[None]:
    before = configure()
    yield
    configure(**asdict(before))


def test_a_billion_laughs_cassette_is_refused_at_once() -> None:
    assert len(BOMB) < 500
    start = time.perf_counter()
    with pytest.raises(LimitExceeded) as exc:
        load_recording(BOMB.encode(), "bomb.yaml")
    assert exc.value.limit == "max_yaml_nodes"
    assert time.perf_counter() - start < 5


def test_a_self_referencing_alias_is_refused() -> None:
    with pytest.raises(UnsupportedInput, match="refers to itself"):
        load_recording(SELF.encode(), "loop.yaml")


def test_aliases_as_yaml_safe_dump_writes_them_are_read() -> None:
    """``yaml.safe_dump`` writes an anchor and an alias for an object it meets twice."""
    import yaml

    request = {"method": "POST", "uri": "https://api.anthropic.com/v1/messages", "body": None}
    response = {"status": {"code": 200}, "headers": {}, "body": {"string": "data: {}\n\n"}}
    text = yaml.safe_dump({"interactions": [{"request": request, "response": response}] * 2})
    assert "&id001" in text and "*id001" in text
    exchanges = load_recording(text.encode(), "shared.yaml")
    assert [ex.uri for ex in exchanges] == [request["uri"]] * 2


@pytest.mark.parametrize(("text", "error"), [(BOMB, LimitExceeded), (SELF, UnsupportedInput)])
def test_the_vcr_deserializer_reads_with_the_same_bounds(text: str, error: type) -> None:
    with pytest.raises(error):
        ParsedBodySerializer.deserialize(text)


def test_the_cli_reports_a_bomb_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    code, out, err = run_cli(["decode", "--from", "anthropic", str(path)])
    assert (code, out) == (1, "") and err.count("\n") == 1 and "max_yaml_nodes" in err


def _gzip_cassette(body: bytes) -> bytes:
    import base64

    packed = base64.b64encode(gzip.compress(body)).decode()
    return (
        "interactions:\n- request: {method: POST, uri: 'https://x/v1/messages', body: null}\n"
        "  response:\n    status: {code: 200}\n"
        "    headers: {content-encoding: [gzip], content-type: [text/event-stream]}\n"
        f"    body: {{string: !!binary '{packed}'}}\n"
    ).encode()


def test_a_compressed_body_may_not_expand_past_the_recording_cap(small_limits: None) -> None:
    configure(max_recording_bytes=1 << 20)
    cassette = _gzip_cassette(b"\n" * (4 << 20))  # 4 MiB of newlines, a few KiB packed
    assert len(cassette) < 64 << 10
    with pytest.raises(LimitExceeded) as exc:
        load_recording(cassette, "gz.yaml")
    assert exc.value.limit == "max_recording_bytes"
    (ex,) = load_recording(_gzip_cassette(b"data: {}\n\n"), "gz.yaml")  # under the cap: read
    assert ex.response_body == b"data: {}\n\n"


def test_a_recording_larger_than_the_cap_is_refused(small_limits: None) -> None:
    configure(max_recording_bytes=1000)
    with pytest.raises(LimitExceeded, match="max_recording_bytes"):
        load_recording(b"data: {}\n\n" * 200, "big.sse")


def test_buffered_argument_text_is_capped(small_limits: None) -> None:
    configure(max_argument_chars=1000)
    events = [
        RunStartedEvent(thread_id="t", run_id="r"),
        ToolCallStartEvent(tool_call_id="c", tool_call_name="f"),
        ToolCallArgsEvent(tool_call_id="c", delta="x" * 600),
        ToolCallArgsEvent(tool_call_id="c", delta="x" * 600),
    ]
    machine = StreamMachine()
    machine.feed_all(events[:3])
    with pytest.raises(LimitExceeded) as exc:
        machine.feed(events[3])
    assert exc.value.limit == "max_argument_chars" and "'c'" in str(exc.value)
    with pytest.raises(LimitExceeded):  # every encoder checks its input with the machine
        list(anthropic.encode_stream(events))


def test_an_sse_event_larger_than_the_cap_is_refused(small_limits: None) -> None:
    configure(max_event_chars=10_000)
    parser = SSEParser("openai_chat")
    parser.feed(b"data: ")
    with pytest.raises(LimitExceeded, match="max_event_chars"):
        for _ in range(100):  # one long line, in pieces, never ended
            parser.feed(b"x" * 500)
    parser = SSEParser("openai_chat")
    with pytest.raises(LimitExceeded):  # many data lines of one event
        parser.feed(b"data: " + b"y" * 900 + b"\n" * 1 + (b"data: " + b"y" * 900 + b"\n") * 20)


def test_the_default_caps_admit_a_50_mb_argument_delta() -> None:
    assert limits().max_argument_chars > 50_000_000
    assert limits().max_event_chars > 50_000_000
