"""Classes 9 and 10 of issue 12: the CLI on malformed input, and a BOM before an SSE body."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from _samples import TEXT_FRAMED, samples
from test_fuzz_harness import run_cli

from toolwire import adapters
from toolwire.protocol.sse import frame_sse

GOOD = Path(__file__).parents[2] / "cassettes/anthropic/thinking_tool_use_signature.yaml"


def cassette(response: str) -> str:
    return (
        "interactions:\n- request: {method: POST, uri: 'https://api.anthropic.com/v1/messages'}\n"
        f"  response: {response}\n"
    )


BINARY = base64.b64encode(b"data: {}\xff\xfe").decode()
MALFORMED = {
    "response not a mapping": cassette("5"),
    "status code not a number": cassette("{status: {code: abc}, body: {string: ''}}"),
    "binary body not UTF-8": cassette(
        "{status: {code: 200}, headers: {content-type: [text/event-stream]}, "
        f"body: {{string: !!binary {BINARY}}}}}"
    ),
    "YAML syntax error": "interactions: [\n  {request: }\n",
    "!!python tag": "interactions: !!python/object/apply:os.system ['true']\n",
    "alias": "interactions:\n- &a {request: *a}\n",
    "not a cassette at all": "hello\n",
    "empty file": "",
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_recording_is_exit_1_with_one_line(name: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(MALFORMED[name])
    code, out, err = run_cli(["decode", "--from", "anthropic", str(path)])
    assert code == 1, (name, err)
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("toolwire: ") and "Traceback" not in err


def test_nothing_reaches_stdout_before_a_late_error(tmp_path: Path) -> None:
    """The first exchange decodes, the second is broken: stdout stays empty."""
    good = GOOD.read_text()
    late = (
        "- request: {method: POST, uri: 'https://api.anthropic.com/v1/messages'}\n"
        "  response:\n    status: {code: 200}\n"
        "    headers: {content-type: [application/json]}\n"
        "    body: {string: 'not json'}\n"
    )
    assert good.rstrip().endswith(("version: 1", "version: 1\n")) or "version:" in good
    head, _, tail = good.partition("version:")
    path = tmp_path / "late.yaml"
    path.write_text(head.rstrip("\n") + "\n" + late + "version:" + tail)
    code, alone, _ = run_cli(["decode", "--from", "anthropic", str(GOOD)])
    assert code == 0 and alone  # the first exchange alone decodes
    code, out, err = run_cli(["decode", "--from", "anthropic", str(path)])
    assert (code, out) == (1, "") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (["validate"], '{"type": "RUN_STARTED"}\n'),
        (["validate"], "[1, 2"),
        (["encode", "--to", "openai_chat"], '{"type": "NOPE_NOT_AN_EVENT"}\n'),
        (["encode-request", "--to", "gemini", "--model", "gemini-2.5-flash"], "[]"),
        (["encode-request", "--to", "gemini", "--model", "gemini-2.5-flash"], '{"messages": 5}'),
        (["decode-request", "--from", "openai_chat"], '"just a string"'),
        (["decode-request", "--from", "asgard"], '{"customChannelId": 5}'),
    ],
)
def test_other_malformed_inputs_are_exit_1_with_one_line(
    argv: list[str], text: str, tmp_path: Path
) -> None:
    path = tmp_path / "in.json"
    path.write_text(text)
    code, out, err = run_cli([*argv, str(path)])
    assert (code, out) == (1, ""), err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("vendor", TEXT_FRAMED)
def test_a_bom_before_an_sse_body_reads_as_without(vendor: str) -> None:
    adapter = adapters.get(vendor)
    streamed = adapter.is_streamed
    bodies = [
        ex.response_body
        for ex in samples(vendor).exchanges
        if ex.is_sse or (streamed is not None and streamed(ex))
    ]
    # Dialogflow's recordings are JSON(L): its chunks framed as the SSE it also reads
    body = bodies[0] if bodies else frame_sse(samples(vendor).chunk_lists[0], done="[DONE]")
    read = adapter.FRAMING.read if bodies else adapter.sse_chunks
    assert list(read(body))
    assert list(read(b"\xef\xbb\xbf" + body)) == list(read(body))


def test_a_recorded_uri_that_is_not_a_url(tmp_path: Path) -> None:
    """Found by the fuzz harness: a mutated ``uri`` once raised urllib's bare ValueError."""
    path = tmp_path / "bad_uri.yaml"
    path.write_text(
        "interactions:\n- request: {method: POST, uri: 'https://[not-a-host/v1/responses'}\n"
        "  response: {status: {code: 200}, body: {string: ''}}\n"
    )
    code, out, err = run_cli(["decode", "--from", "openai_responses", str(path)])
    assert (code, out) == (1, "") and err.count("\n") == 1 and "not a URL" in err
