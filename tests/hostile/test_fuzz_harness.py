"""The fuzz harness: recorded material of all six adapters, mutated, in both directions.

Each case takes a recorded body, chunk list, request, decoded run or run input and mutates
it structurally (any place replaced by a hostile value, or deleted) or at the byte level
(cut, byte flipped, bytes inserted, deleted or repeated). Whatever comes out, only
``toolwire.errors`` exceptions may escape, and no case may take longer than
``CASE_SECONDS`` (a hang guard, not a benchmark). The example count follows the
hypothesis profile (``HYPOTHESIS_PROFILE=thorough`` runs many more; see tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _mutate import byte_level, structural
from _samples import VENDORS, decode_exchange, samples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import adapters, cli
from toolwire.errors import ToolwireError
from toolwire.protocol.runs import frame_run

CASE_SECONDS = 10.0
#: a fifth of the profile's count: the default profile gives 20 per test (the suite stays fast)
EXAMPLES = max(10, settings().max_examples // 5)
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
MODEL = {
    "anthropic": "claude-sonnet-4-5",
    "openai_chat": "gpt-4o",
    "openai_responses": "gpt-5",
    "gemini": "gemini-2.5-flash",
    "dialogflow": "any",
    "asgard": "any",
}
# any other adapter (a new one, a plugin): its client's default model, else any name
for _name in adapters.names():
    _sdk = adapters.model(_name).CLIENT if _name in adapters.model_names() else None
    MODEL.setdefault(_name, _sdk.default_model if _sdk is not None else "any")


@contextlib.contextmanager
def only_toolwire_errors(what: str) -> Iterator[None]:
    """The case may fail, but only with a ``ToolwireError``, and within ``CASE_SECONDS``."""
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            yield
        except ToolwireError:
            pass
    took = time.perf_counter() - start
    assert took < CASE_SECONDS, f"{what}: one case took {took:.1f} s (a hang or worse than linear)"


def _consume(make: Callable[[], Any]) -> None:
    result = make()
    if hasattr(result, "__next__"):
        list(result)


@pytest.mark.parametrize("vendor", VENDORS)
@FUZZ
@given(data=st.data())
def test_mutated_response_bodies_decode_or_fail_cleanly(vendor: str, data: st.DataObject) -> None:
    s = samples(vendor)
    bodies = [ex for ex in s.exchanges if ex.response_body]
    ex = data.draw(st.sampled_from(bodies))
    body = data.draw(byte_level([ex.response_body]))
    mutated = dataclasses.replace(ex, response_body=body)
    with only_toolwire_errors(f"{vendor} decode of a mutated body"):
        decode_exchange(adapters.get(vendor), mutated)


@pytest.mark.parametrize("vendor", VENDORS)
@FUZZ
@given(data=st.data())
def test_mutated_chunks_decode_or_fail_cleanly(vendor: str, data: st.DataObject) -> None:
    s = samples(vendor)
    assert s.chunk_lists, f"{vendor}: no streamed recording to mutate"
    chunks = data.draw(structural(s.chunk_lists))
    adapter = adapters.get(vendor)
    with only_toolwire_errors(f"{vendor} decode of mutated chunks"):
        items = chunks if isinstance(chunks, list) else [chunks]
        list(frame_run(adapter.Decoder(), items, thread_id="t", run_id="r"))


@pytest.mark.parametrize("vendor", VENDORS)
@FUZZ
@given(data=st.data())
def test_mutated_requests_decode_or_fail_cleanly(vendor: str, data: st.DataObject) -> None:
    s = samples(vendor)
    assert s.requests, f"{vendor}: no recorded request to mutate"
    body = data.draw(structural(s.requests))
    with only_toolwire_errors(f"{vendor} decode_request of a mutated request"):
        adapters.get(vendor).decode_request(body)


@pytest.mark.parametrize("vendor", VENDORS)
@FUZZ
@given(data=st.data())
def test_mutated_runs_encode_or_fail_cleanly(vendor: str, data: st.DataObject) -> None:
    runs = [run for v in VENDORS for run in samples(v).runs]
    events = data.draw(structural(runs))
    adapter = adapters.get(vendor)
    with only_toolwire_errors(f"{vendor} encode of a mutated run"):
        items = events if isinstance(events, list) else [events]
        adapter.to_sse(list(adapter.encode_stream(items)))


@pytest.mark.parametrize("vendor", VENDORS)
@FUZZ
@given(data=st.data())
def test_mutated_run_inputs_encode_or_fail_cleanly(vendor: str, data: st.DataObject) -> None:
    inputs = [ri for v in VENDORS for ri in samples(v).inputs]
    run_input = data.draw(structural(inputs))
    with only_toolwire_errors(f"{vendor} encode_request of a mutated input"):
        adapters.get(vendor).encode_request(run_input, model=MODEL[vendor])


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("vendor", VENDORS)
@FUZZ
@given(data=st.data())
def test_mutated_recording_files_through_the_cli(vendor: str, data: st.DataObject) -> None:
    """A mutated recording file: exit 0, or exit 1 with one stderr line and nothing on stdout."""
    files = samples(vendor).files
    path = data.draw(st.sampled_from(files))
    body = data.draw(byte_level([path.read_bytes()]))
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / path.name
        target.write_bytes(body)
        start = time.perf_counter()
        code, out, err = run_cli(["decode", "--from", vendor, str(target)])
        took = time.perf_counter() - start
    assert took < CASE_SECONDS, f"{vendor}: the CLI took {took:.1f} s on one case"
    assert code in (0, 1), err
    if code == 1:
        assert out == "", "stdout must stay empty when the command fails"
        assert err.count("\n") == 1 and err.startswith("toolwire: "), err
        assert "Traceback" not in err


def _jsonl(events: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(e) + "\n" for e in events).encode()


@pytest.mark.parametrize("vendor", VENDORS)
@FUZZ
@given(data=st.data())
def test_mutated_event_files_through_the_cli(vendor: str, data: st.DataObject) -> None:
    """A decoded run (JSONL) or a run input (JSON), mutated at the byte level, to ``validate``,
    ``encode``, ``encode-request`` and ``decode-request``: exit 0, or 1 with one line."""
    s = samples(vendor)
    runs = [_jsonl(run) for run in s.runs]
    inputs = [json.dumps(ri).encode() for ri in s.inputs] or runs
    requests = [json.dumps(body).encode() for body in s.requests] or runs
    command = data.draw(st.sampled_from(["validate", "encode", "encode-request", "decode-request"]))
    source = {
        "validate": runs,
        "encode": runs,
        "encode-request": inputs,
        "decode-request": requests,
    }
    body = data.draw(byte_level(source[command]))
    argv = {
        "validate": ["validate"],
        "encode": ["encode", "--to", vendor],
        "encode-request": ["encode-request", "--to", vendor, "--model", MODEL[vendor]],
        "decode-request": ["decode-request", "--from", vendor],
    }[command]
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "input.json"
        target.write_bytes(body)
        start = time.perf_counter()
        code, out, err = run_cli([*argv, str(target)])
        took = time.perf_counter() - start
    assert took < CASE_SECONDS, f"{vendor} {command}: {took:.1f} s on one case"
    assert code in (0, 1), err
    if code == 1:
        assert out == "" and err.count("\n") == 1 and err.startswith("toolwire: "), err
