"""The surface of toolwire.run / arun: imports, which adapter a client gets, arguments,
retry policy and Retry-After, losses (returned and forwarded), legacy peers."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
import warnings
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from _driver_support import (
    CASES,
    KEY,
    PNG,
    answered_with_image,
    anthropic_http,
    check_run,
    clean_reply,
    error_reply,
    gemini_http,
    openai_http,
    run_input,
)
from ag_ui.core import EventType
from google import genai

import toolwire
from toolwire.driver import LOSSES_EVENT, loss_record
from toolwire.driver._vendors import choose_vendor
from toolwire.errors import UnsupportedInput
from toolwire.failures import retry_after
from toolwire.losses import PartsDroppedWarning
from toolwire.testing.fake_vendor import FakeVendor, Reply

_BY_VENDOR = {c.vendor: c for c in CASES}
ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, GEMINI = (
    _BY_VENDOR[v] for v in ("anthropic", "openai_chat", "openai_responses", "gemini")
)


def test_import_toolwire_imports_no_sdk_no_tenacity_no_driver_no_server() -> None:
    code = (
        "import sys, toolwire\n"
        "heavy = [m for m in ('anthropic', 'openai', 'google.genai', 'httpx2', 'httpx',"
        " 'tenacity', 'toolwire.driver', 'toolwire.server', 'starlette', 'uvicorn',"
        " 'opentelemetry', 'toolwire.telemetry',"
        " 'toolwire.adapters.anthropic') if m in sys.modules]\n"
        "print(repr(heavy))\n"
        "run = toolwire.run\n"
        "print(repr([m for m in ('tenacity', 'anthropic', 'openai', 'google.genai')"
        " if m in sys.modules]), 'toolwire.driver' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["[]", "[] True"]


def test_the_public_names() -> None:
    assert callable(toolwire.run) and callable(toolwire.arun)
    assert toolwire.RetryPolicy().attempts >= 1
    assert {"run", "arun", "RetryPolicy"} <= set(toolwire.__all__)
    with pytest.raises(AttributeError):
        _ = toolwire.no_such_thing  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("make", "api", "expected"),
    [
        (lambda: anthropic.Anthropic(api_key=KEY, http_client=anthropic_http()), None, "anthropic"),
        (
            lambda: anthropic.AsyncAnthropic(
                api_key=KEY, http_client=anthropic_http(is_async=True)
            ),
            None,
            "anthropic",
        ),
        (lambda: openai.OpenAI(api_key=KEY, http_client=openai_http()), None, "openai_responses"),
        (lambda: openai.OpenAI(api_key=KEY, http_client=openai_http()), "chat", "openai_chat"),
        (
            lambda: openai.OpenAI(
                api_key=KEY, base_url="http://127.0.0.1:9/v1", http_client=openai_http()
            ),
            None,
            "openai_chat",
        ),
        (
            lambda: openai.AsyncOpenAI(
                api_key=KEY,
                base_url="http://127.0.0.1:9/v1",
                http_client=openai_http(is_async=True),
            ),
            "responses",
            "openai_responses",
        ),
        (
            lambda: openai.AzureOpenAI(
                api_key=KEY, api_version="2025-04-01", azure_endpoint="https://x.openai.azure.com"
            ),
            None,
            "openai_responses",
        ),
        (lambda: genai.Client(api_key=KEY, http_options=gemini_http()), None, "gemini"),
        (lambda: genai.Client(api_key=KEY, http_options=gemini_http()).aio, None, "gemini"),
    ],
)
def test_the_adapter_comes_from_the_client_type(make: Any, api: Any, expected: str) -> None:
    assert choose_vendor(make(), None, api) == expected


def test_vendor_overrides_the_client_type() -> None:
    client = openai.OpenAI(api_key=KEY, http_client=openai_http())
    assert choose_vendor(client, "openai_chat", None) == "openai_chat"
    with pytest.raises(UnsupportedInput, match="dialogflow"):
        choose_vendor(client, "dialogflow", None)
    with pytest.raises(UnsupportedInput, match="cannot tell the vendor of a object"):
        choose_vendor(object(), None, None)
    with pytest.raises(UnsupportedInput, match="api must be"):
        choose_vendor(client, None, "completions")


def test_bad_arguments_raise_at_the_call() -> None:
    ri = run_input(ANTHROPIC)
    sync, aio = (
        anthropic.Anthropic(api_key=KEY, http_client=anthropic_http()),
        anthropic.AsyncAnthropic(api_key=KEY, http_client=anthropic_http(is_async=True)),
    )
    with pytest.raises(UnsupportedInput, match=r"use toolwire\.arun"):
        toolwire.run(aio, ri, model="m")
    with pytest.raises(UnsupportedInput, match=r"use toolwire\.run"):
        toolwire.arun(sync, ri, model="m")
    with pytest.raises(UnsupportedInput, match="on_cancel"):
        toolwire.run(sync, ri, model="m", on_cancel="later")  # type: ignore[arg-type]
    with pytest.raises(UnsupportedInput, match="RetryPolicy"):
        toolwire.run(sync, ri, model="m", retry=3)  # type: ignore[arg-type]
    with pytest.raises(UnsupportedInput, match="messages"):
        toolwire.run(sync, {**ri, "messages": 5}, model="m")
    with pytest.raises(UnsupportedInput, match="attempts"):
        toolwire.RetryPolicy(attempts=0)


def test_retry_after_reads_ms_seconds_and_dates() -> None:
    assert retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "3"}) == 3.0
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    date = format_datetime(now + timedelta(seconds=7), usegmt=True)
    assert retry_after({"retry-after": date}, now=now.timestamp()) == 7.0
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None


def test_retry_after_in_seconds_is_waited_for(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    case = ANTHROPIC
    replies = [error_reply(case, 429, **{"retry-after": "1"}), clean_reply(case)]
    with caplog.at_level(logging.INFO, logger="toolwire.driver"), FakeVendor(replies) as fv:
        began = time.monotonic()
        events = list(
            toolwire.run(case.client(fv.base_url, False), run_input(case), model=case.model)
        )
        took = time.monotonic() - began
    check_run(events, tmp_path)
    assert events[-1].type == EventType.RUN_FINISHED and len(fv.requests) == 2
    assert [r.getMessage()[-17:] for r in caplog.records] == ["retrying in 1.000s"[-17:]]
    assert took >= 0.95


def test_a_long_retry_after_is_capped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    case = OPENAI_CHAT
    policy = toolwire.RetryPolicy(max_retry_after=0.05)
    replies = [error_reply(case, 503, **{"retry-after": "3600"}), clean_reply(case)]
    with caplog.at_level(logging.INFO, logger="toolwire.driver"), FakeVendor(replies) as fv:
        client = case.client(fv.base_url, False)
        events = list(toolwire.run(client, run_input(case), model=case.model, retry=policy))
    assert events[-1].type == EventType.RUN_FINISHED and len(fv.requests) == 2
    assert caplog.records[-1].getMessage().endswith("retrying in 0.050s")


def test_x_should_retry_false_is_obeyed() -> None:
    case = ANTHROPIC
    with FakeVendor([error_reply(case, 503, **{"x-should-retry": "false"})]) as fv:
        client = case.client(fv.base_url, False)
        events = list(toolwire.run(client, run_input(case), model=case.model))
    assert events[-1].type == EventType.RUN_ERROR and len(fv.requests) == 1
    assert events[-1].metadata["toolwire.retryable"] is False


def test_losses_are_returned_and_forwarded_before_run_finished(tmp_path: Path) -> None:
    case = OPENAI_CHAT  # Chat Completions takes no image in a tool message
    lost: list[Any] = []
    with FakeVendor([clean_reply(case)]) as fv, warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        client = case.client(fv.base_url, False)
        ri = answered_with_image(case)
        events = list(toolwire.run(client, ri, model=case.model, losses=lost, forward_losses=True))
    check_run(events, tmp_path)
    assert lost and all(x.tool_call_id == "call_1" for x in lost)
    warned = [str(w.message) for w in seen if issubclass(w.category, PartsDroppedWarning)]
    assert warned == [x.message for x in lost]
    custom, finished = events[-2], events[-1]
    assert finished.type == EventType.RUN_FINISHED
    assert custom.type == EventType.CUSTOM and custom.name == LOSSES_EVENT
    assert custom.value == [loss_record(x) for x in lost]
    assert custom.value[0]["toolCallId"] == "call_1" and custom.value[0]["partKind"] == "image"
    sent = json.loads(fv.requests[0].body)
    tool_msgs = [m for m in sent["messages"] if m["role"] == "tool"]
    assert tool_msgs and "Sunny, 21 C" in json.dumps(tool_msgs)
    assert PNG not in json.dumps(tool_msgs)


def test_losses_are_not_forwarded_unless_asked() -> None:
    case = OPENAI_CHAT
    lost: list[Any] = []
    with FakeVendor([clean_reply(case)]) as fv, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = case.client(fv.base_url, False)
        events = list(
            toolwire.run(client, answered_with_image(case), model=case.model, losses=lost)
        )
    assert lost
    assert not [ev for ev in events if ev.type == EventType.CUSTOM]


def test_a_peer_without_protocol_version_gets_the_downgraded_stream(tmp_path: Path) -> None:
    case = ANTHROPIC  # Anthropic takes the image: only the downgrade loses it
    lost: list[Any] = []
    with FakeVendor([clean_reply(case)]) as fv:
        client = case.client(fv.base_url, False)
        # the warning says what happened and how a Python caller states the version
        says = r"peer without protocolVersion.*protocol_version=ag_ui\.core\.PROTOCOL_VERSION"
        with pytest.warns(PartsDroppedWarning, match=says):
            events = list(
                toolwire.run(
                    client, answered_with_image(case, legacy=True), model=case.model, losses=lost
                )
            )
    check_run(events, tmp_path)
    started = events[0]
    [tool] = [m for m in started.input.messages if m.role == "tool"]
    assert tool.content == "Sunny, 21 C"  # flattened for a peer before content parts
    assert [x.part_kind for x in lost] == ["image"]
    sent = json.loads(fv.requests[0].body)
    assert PNG in json.dumps(sent)  # the model itself still got the image


def test_an_input_stating_the_version_keeps_its_parts_without_a_warning(
    recwarn: pytest.WarningsRecorder,
) -> None:
    case = ANTHROPIC
    with FakeVendor([clean_reply(case)]) as fv:
        client = case.client(fv.base_url, False)
        events = list(toolwire.run(client, answered_with_image(case), model=case.model))
    [tool] = [m for m in events[0].input.messages if m.role == "tool"]
    assert [p.type for p in tool.content] == ["text", "image"]
    assert not [w for w in recwarn if issubclass(w.category, PartsDroppedWarning)]


def test_vendor_params_reach_the_request() -> None:
    with FakeVendor([clean_reply(ANTHROPIC)]) as fv:
        client = ANTHROPIC.client(fv.base_url, False)
        list(
            toolwire.run(
                client,
                run_input(ANTHROPIC),
                model="claude-x",
                max_tokens=77,
                stop_sequences=["END"],
            )
        )
    sent = json.loads(fv.requests[0].body)
    assert (sent["model"], sent["max_tokens"], sent["stop_sequences"]) == ("claude-x", 77, ["END"])
    with FakeVendor([clean_reply(GEMINI)]) as fv:
        client = GEMINI.client(fv.base_url, False)
        list(toolwire.run(client, run_input(GEMINI), model=GEMINI.model, temperature=0.25))
    sent = json.loads(fv.requests[0].body)
    assert sent["generationConfig"]["temperature"] == 0.25  # the SDK's own wire form


def test_a_read_timeout_before_the_turn_is_retried(tmp_path: Path) -> None:
    case = ANTHROPIC
    slow = clean_reply(case, delay=1.5)  # nothing arrives within the client's timeout
    with FakeVendor([slow, clean_reply(case)]) as fv:
        client = anthropic.Anthropic(
            api_key=KEY, base_url=fv.base_url, timeout=0.3, http_client=anthropic_http()
        )
        policy = toolwire.RetryPolicy(initial_backoff=0.01, max_backoff=0.02)
        events = list(toolwire.run(client, run_input(case), model=case.model, retry=policy))
    check_run(events, tmp_path)
    assert events[-1].type == EventType.RUN_FINISHED
    assert len(fv.requests) == 2


def test_a_read_timeout_every_time_is_run_error_timeout(tmp_path: Path) -> None:
    case = OPENAI_CHAT
    slow = clean_reply(case, delay=1.5)
    with FakeVendor([slow, slow]) as fv:
        client = openai.OpenAI(
            api_key=KEY, base_url=fv.base_url + "/v1", timeout=0.3, http_client=openai_http()
        )
        policy = toolwire.RetryPolicy(attempts=2, initial_backoff=0.01, max_backoff=0.02)
        events = list(toolwire.run(client, run_input(case), model=case.model, retry=policy))
    check_run(events, tmp_path)
    assert events[-1].type == EventType.RUN_ERROR and events[-1].code == "timeout"
    assert events[-1].metadata["toolwire.attempts"] == 2


def test_a_proxy_error_page_is_run_error_with_the_status(tmp_path: Path) -> None:
    case = OPENAI_RESPONSES
    page = Reply(status=502, headers={"content-type": "text/html"}, chunks=[b"<html>Bad</html>"])
    policy = toolwire.RetryPolicy(attempts=2, initial_backoff=0.01, max_backoff=0.02)
    with FakeVendor([page, page]) as fv:
        client = case.client(fv.base_url, False)
        events = list(
            toolwire.run(client, run_input(case), model=case.model, retry=policy, api="responses")
        )
    check_run(events, tmp_path)
    err = events[-1]
    assert err.type == EventType.RUN_ERROR and err.code == "http_502"
    assert err.metadata["toolwire.httpStatus"] == 502 and len(fv.requests) == 2


def test_malformed_vendor_data_is_run_error_not_retried(tmp_path: Path) -> None:
    case = OPENAI_CHAT
    bad = Reply(headers={"content-type": "text/event-stream"}, chunks=[b"data: {not json\n\n"])
    with FakeVendor([bad, clean_reply(case)]) as fv:
        client = case.client(fv.base_url, False)
        events = list(toolwire.run(client, run_input(case), model=case.model))
    check_run(events, tmp_path)
    err = events[-1]
    assert err.type == EventType.RUN_ERROR and err.code == "VendorDataError"
    assert "SSE event 0" in err.message and len(fv.requests) == 1


@pytest.mark.parametrize(
    ("case", "make", "path"),
    [
        (
            OPENAI_RESPONSES,
            lambda u: openai.AzureOpenAI(
                api_key=KEY, api_version="2025-04-01-preview", azure_endpoint=u
            ),
            "/openai/responses?api-version=2025-04-01-preview",
        ),
        (
            ANTHROPIC,
            lambda u: anthropic.AnthropicVertex(
                access_token=KEY, region="us-east5", project_id="p", base_url=u
            ),
            "/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5"
            ":streamRawPredict",
        ),
        (
            GEMINI,
            lambda u: genai.Client(
                vertexai=True, api_key=KEY, http_options=gemini_http(base_url=u)
            ),
            "/publishers/google/models/gemini-3-pro-preview:streamGenerateContent?alt=sse",
        ),
    ],
    ids=["azure-openai", "anthropic-vertex", "gemini-vertex"],
)
def test_the_cloud_variants_of_the_clients(case: Any, make: Any, path: str, tmp_path: Path) -> None:
    with FakeVendor([clean_reply(case)]) as fv:
        events = list(toolwire.run(make(fv.base_url), run_input(case), model=case.model))
    check_run(events, tmp_path)
    assert events[-1].type == EventType.RUN_FINISHED
    assert fv.requests[0].path.endswith(path)


def test_a_toolwire_error_under_an_sdk_connection_error_is_not_retried() -> None:
    """A cassette miss raised inside the transport reaches the driver wrapped by the SDK as a
    connection error; retrying would only meet it again (and cost the backoff)."""
    import httpx

    from toolwire.errors import CassetteMiss
    from toolwire.failures import classify

    request = httpx.Request("POST", "https://api.anthropic.com/v1/messages")
    miss = CassetteMiss(
        "c.yaml", "POST /v1/messages", "body.messages[0]: recorded 1, now 2", "none"
    )
    try:
        try:
            raise miss
        except CassetteMiss as inner:
            raise anthropic.APIConnectionError(request=request) from inner
    except anthropic.APIConnectionError as wrapped:
        failure = classify(wrapped)
    assert failure.retryable is False
    assert failure.code == "CassetteMiss"
    assert "body.messages[0]" in failure.message
    plain = anthropic.APIConnectionError(request=request)
    assert classify(plain).retryable is True


def test_aiohttp_s_payload_and_connection_errors_are_connection_errors_by_name() -> None:
    """google-genai reads its async stream through aiohttp when aiohttp is installed: a body
    cut short there raises ``aiohttp.ClientPayloadError`` (not a connection-error subclass in
    aiohttp's tree), which is retried as one. Classed by name: toolwire imports no aiohttp."""
    from toolwire.failures import classify

    class ClientError(Exception):
        pass

    class ClientPayloadError(ClientError):
        pass

    class ClientConnectionError(ClientError):
        pass

    class ServerDisconnectedError(ClientConnectionError):
        pass

    for exc in (
        ClientPayloadError("Response payload is not completed"),
        ServerDisconnectedError("Server disconnected"),
    ):
        failure = classify(exc)
        assert (failure.code, failure.retryable) == ("connection_error", True), exc
    assert classify(ClientError("other")).code == "ClientError"


class _UntypedStreamError(Exception):
    """An SDK's exception for an ``{"error": "text"}`` line inside a stream: no HTTP status
    (the SDK's own -1) and the vendor's text as ``error``."""

    def __init__(self, error: str, status_code: int = -1) -> None:
        super().__init__(error)
        self.error = error
        self.status_code = status_code


def test_an_untyped_in_stream_error_keeps_the_vendors_words() -> None:
    from toolwire.failures import classify

    plain = classify(_UntypedStreamError("model runner has unexpectedly stopped"))
    assert (plain.code, plain.message, plain.retryable) == (
        "error",
        "model runner has unexpectedly stopped",
        False,
    )
    # a text naming a retryable error (an adapter's words) is worth another attempt
    assert classify(_UntypedStreamError("server busy, please try again")).retryable is True
    # with an HTTP status it is an HTTP error, read as one
    assert classify(_UntypedStreamError("not found", 404)).code != "error"
