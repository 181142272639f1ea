"""Every hand-built Bedrock cassette replays through boto3 itself with vcrpy
(``record_mode="none"``, toolwire's ``make_vcr``): the binary bodies are ones botocore
reads, and what it reads decodes to what toolwire reads from the same bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
import yaml
from _bedrock_sdk import CASSETTES, client
from botocore.eventstream import EventStreamError

from toolwire.adapters.bedrock import decode_response, decode_stream, sse_chunks, to_boto3
from toolwire.errors import ToolwireError
from toolwire.recordings import load_recording
from toolwire.testing.vcr import make_vcr

CASES = [
    (p, n)
    for p in sorted(CASSETTES.glob("*.yaml"))
    for n in range(len(yaml.safe_load(p.read_text("utf-8"))["interactions"]))
]


def plain(events: list[Any]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


def ours(path: Path, n: int) -> tuple[str, Any]:
    """toolwire's reading of interaction ``n``: its events, or the error it ends in."""
    ex = load_recording(path.read_bytes(), path.name)[n]
    try:
        if "eventstream" in ex.content_type:
            return "events", plain(list(decode_stream(sse_chunks(ex.response_body))))
        return "events", plain(decode_response(json.loads(ex.response_body)))
    except ToolwireError as exc:
        return "error", type(exc).__name__


@pytest.mark.parametrize(("path", "n"), CASES, ids=[f"{p.stem}-{n}" for p, n in CASES])
def test_the_cassette_replays_through_boto3(path: Path, n: int) -> None:
    doc = yaml.safe_load(path.read_text("utf-8"))
    request = doc["interactions"][n]["request"]
    parts = urlsplit(request["uri"])
    _, _, model, operation = parts.path.split("/")
    kwargs = to_boto3({"modelId": unquote(model), **json.loads(request["body"])})
    # the earlier interactions are played first: vcrpy replays them in order
    with make_vcr("none").use_cassette(str(path), allow_playback_repeats=False) as cassette:
        c = client(f"{parts.scheme}://{parts.netloc}")
        for earlier in doc["interactions"][:n]:
            body = json.loads(earlier["request"]["body"])
            model_ = unquote(urlsplit(earlier["request"]["uri"]).path.split("/")[2])
            _consume(
                c,
                earlier["request"]["uri"].endswith("-stream"),
                to_boto3({"modelId": model_, **body}),
            )
        kind, expected = ours(path, n)
        if operation == "converse":
            response = c.converse(**kwargs)
            assert kind == "events"
            assert plain(decode_response(response)) == expected
        else:
            response = c.converse_stream(**kwargs)
            try:
                theirs = list(response["stream"])
            except EventStreamError:
                assert (kind, expected) == ("error", "VendorStreamError")
                return
            try:
                got = ("events", plain(list(decode_stream(theirs))))
            except ToolwireError as exc:
                got = ("error", type(exc).__name__)
            if kind == "error" and expected == "TruncatedStream":
                # botocore stops quietly at a frame cut short; the missing messageStop still
                # makes it an error, never success
                assert got == ("error", "TruncatedStream")
            else:
                assert got == (kind, expected)
        assert cassette.play_count == n + 1


def _consume(c: Any, streamed: bool, kwargs: dict[str, Any]) -> None:
    if streamed:
        list(c.converse_stream(**kwargs)["stream"])
    else:
        c.converse(**kwargs)
