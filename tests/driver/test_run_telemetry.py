"""OpenTelemetry over toolwire.run / arun: the spans, events and metrics of real runs (the
vendors' SDK clients against FakeVendor replaying our cassettes), read back through the
OpenTelemetry SDK's in-memory exporter and reader. Expected values come from the
recordings (usage, ids, calls) and the GenAI semantic conventions' names, never from
toolwire's own output."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from _driver_support import (
    CASE_IDS,
    CASES,
    KEY,
    Case,
    clean_reply,
    error_reply,
    run_case,
    run_input,
    split_half,
    vendor_call_id,
)
from ag_ui.core import EventType
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from toolwire import adapters, telemetry
from toolwire.losses import ContentLossWarning
from toolwire.testing.fake_vendor import FakeVendor, Reply
from toolwire.testing.recording_cache import recording

ROOT_CASSETTES = __import__("_driver_support").CASSETTES

params = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
modes = pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])


class Otel:
    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        tracer = TracerProvider()
        tracer.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.tracer = tracer
        self.meter = MeterProvider(metric_readers=[self.reader])

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def named(self, prefix: str) -> list[ReadableSpan]:
        """toolwire's spans whose name starts so (an SDK may add spans of its own)."""
        return [
            s
            for s in self.finished()
            if s.name.startswith(prefix) and s.instrumentation_scope.name == "toolwire"
        ]

    def points(self, name: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        out: list[Any] = []
        for rm in data.resource_metrics if data is not None else ():
            for sm in rm.scope_metrics:
                for metric in sm.metrics:
                    if metric.name == name:
                        assert sm.scope.name == "toolwire"
                        out.extend((metric, p) for p in metric.data.data_points)
        return out


@pytest.fixture
def otel() -> Iterator[Otel]:
    o = Otel()
    telemetry.configure(tracer_provider=o.tracer, meter_provider=o.meter)
    try:
        yield o
    finally:
        telemetry.configure()


#: ``gen_ai.provider.name`` as the GenAI conventions list the providers (Ollama is not in
#: their list: its own name)
PROVIDER_NAMES = {
    "anthropic": "anthropic",
    "openai_chat": "openai",
    "openai_responses": "openai",
    "gemini": "gcp.gemini",
    "bedrock": "aws.bedrock",
    "mistral": "mistral_ai",
    "cohere": "cohere",
    "ollama": "ollama",
}


def _collect(
    case: Case, replies: list[Reply], is_async: bool, seen: list[Any] | None = None, **kw: Any
) -> list[Any]:
    with FakeVendor(replies, timeout=30) as fv:
        if seen is not None:
            seen.append(fv)
        return run_case(case, fv, run_input(case), is_async, **kw)


#: where each recording states its token counts: (a usage object's key, its input count's
#: keys, its output count's keys); the figures toolwire reports are the protocol's (cache
#: counts inside the input, Gemini's thoughts billed as output, Cohere's model tokens)
_COUNTS = (
    ("usage", ("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens")),
    ("usageMetadata", ("promptTokenCount",), ("candidatesTokenCount", "thoughtsTokenCount")),
    ("usage", ("inputTokens",), ("outputTokens",)),
    ("tokens", ("input_tokens",), ("output_tokens",)),
    (None, ("prompt_eval_count",), ("eval_count",)),
)


def _recorded_usage(case: Case) -> tuple[int, int]:
    """Input and output tokens as the recorded response itself states them, read through
    the adapter's own framing (SSE, NDJSON, the AWS event stream) as plain JSON."""
    [ex] = recording(ROOT_CASSETTES / case.clean)
    found: dict[str, int] = {}
    for chunk in adapters.get(case.vendor).FRAMING.read(ex.response_body):
        for holder, ins, outs in _COUNTS:
            for usage in _objects(chunk, holder):
                if holder == "usage" and isinstance(usage.get("tokens"), dict):
                    continue  # Cohere: its model counts are under "tokens"
                got_in = sum(v for k in ins if isinstance(v := usage.get(k), int))
                got_out = sum(v for k in outs if isinstance(v := usage.get(k), int))
                if any(isinstance(usage.get(k), int) for k in ins):
                    found["in"] = max(found.get("in", 0), got_in)
                if any(isinstance(usage.get(k), int) for k in outs):
                    found["out"] = max(found.get("out", 0), got_out)
    return found["in"], found["out"]


def _objects(obj: Any, key: str | None) -> Iterator[dict[str, Any]]:
    """Every object under ``key`` anywhere in ``obj`` (``None``: ``obj``'s objects too)."""
    if isinstance(obj, dict):
        if key is None:
            yield obj
        for name, value in obj.items():
            if name == key and isinstance(value, dict):
                yield value
            elif isinstance(value, (dict, list)):
                yield from _objects(value, key)
    elif isinstance(obj, list):
        for value in obj:
            yield from _objects(value, key)


@params
@modes
def test_a_clean_run_is_a_run_span_with_one_chat_span_and_the_metrics(
    case: Case, is_async: bool, otel: Otel
) -> None:
    seen: list[FakeVendor] = []
    events = _collect(case, [clean_reply(case)], is_async, seen)
    assert events[-1].type == EventType.RUN_FINISHED
    [run] = otel.named("invoke_agent")
    [chat] = otel.named("chat ")
    assert chat.name == f"chat {case.model}"
    # the trace context went out with the vendor request, in this run's trace
    [request] = seen[0].requests
    traceparent = request.headers["traceparent"]
    assert traceparent.split("-")[1] == f"{chat.context.trace_id:032x}"
    assert chat.kind is SpanKind.CLIENT
    assert chat.parent is not None and chat.parent.span_id == run.context.span_id
    attrs = dict(chat.attributes or {})
    assert attrs["gen_ai.operation.name"] == "chat"
    assert attrs["gen_ai.provider.name"] == PROVIDER_NAMES[case.vendor]
    assert attrs["gen_ai.request.model"] == case.model
    assert attrs["gen_ai.conversation.id"] == "thread-1"
    assert attrs["server.address"] == "127.0.0.1"
    assert isinstance(attrs["server.port"], int)
    # the turn ends with calls pending: the stated finish reason is the tool-call one
    assert attrs["gen_ai.response.finish_reasons"] == ("tool_calls",)
    want_in, want_out = _recorded_usage(case)
    assert attrs["gen_ai.usage.input_tokens"] == want_in
    assert attrs["gen_ai.usage.output_tokens"] == want_out
    assert chat.status.status_code is StatusCode.UNSET
    run_attrs = dict(run.attributes or {})
    assert run_attrs["toolwire.run_id"] == "run-1"
    assert run_attrs["gen_ai.operation.name"] == "invoke_agent"
    assert run_attrs["gen_ai.provider.name"] == PROVIDER_NAMES[case.vendor]
    assert run_attrs["gen_ai.request.model"] == case.model
    assert run.status.status_code is StatusCode.UNSET
    tokens = {
        dict(p.attributes)["gen_ai.token.type"]: p
        for _, p in otel.points("gen_ai.client.token.usage")
    }
    assert tokens["input"].sum == want_in and tokens["output"].sum == want_out
    [(metric, duration)] = otel.points("gen_ai.client.operation.duration")
    assert metric.unit == "s" and duration.count == 1 and duration.sum > 0
    assert "error.type" not in dict(duration.attributes)


@params
@modes
def test_a_retried_429_is_an_event_on_the_chat_span(case: Case, is_async: bool, otel: Otel) -> None:
    replies = [error_reply(case, 429, **{"retry-after-ms": "20"}), clean_reply(case)]
    events = _collect(case, replies, is_async)
    assert events[-1].type == EventType.RUN_FINISHED
    [chat] = otel.named("chat ")
    retries = [e for e in chat.events if e.name == "toolwire.retry"]
    assert len(retries) == 1
    assert retries[0].attributes["toolwire.attempt"] == 1
    # the vendor's error type for the 429 it answered (its status where it names none)
    assert retries[0].attributes["error.type"] == case.code_of(case.error_type, 429)
    assert retries[0].attributes["toolwire.wait"] == pytest.approx(0.02)  # its retry-after-ms
    assert chat.status.status_code is StatusCode.UNSET
    # one model call, however many attempts: one duration, not an error
    [(_, duration)] = otel.points("gen_ai.client.operation.duration")
    assert duration.count == 1 and "error.type" not in dict(duration.attributes)


@params
@modes
def test_a_cut_stream_is_an_error_span_and_an_error_duration(
    case: Case, is_async: bool, otel: Otel
) -> None:
    reply = clean_reply(case)
    cut = Reply(
        status=200, headers=reply.headers, chunks=reply.chunks, reset_after=split_half(reply)
    )
    events = _collect(case, [cut, clean_reply(case)], is_async)
    assert events[-1].type == EventType.RUN_ERROR
    [chat] = otel.named("chat ")
    [run] = otel.named("invoke_agent")
    assert chat.status.status_code is StatusCode.ERROR
    assert dict(chat.attributes or {})["error.type"] == events[-1].code
    assert run.status.status_code is StatusCode.ERROR
    [(_, duration)] = otel.points("gen_ai.client.operation.duration")
    assert dict(duration.attributes)["error.type"] == events[-1].code


@params
def test_content_is_recorded_only_when_opted_in_and_the_key_never(
    case: Case, otel: Otel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(telemetry.CAPTURE_ENV, raising=False)
    _collect(case, [clean_reply(case)], False)
    [chat] = otel.named("chat ")
    assert "gen_ai.input.messages" not in (chat.attributes or {})
    otel.spans.clear()
    telemetry.configure(
        tracer_provider=otel.tracer, meter_provider=otel.meter, capture_content=True
    )
    ri = run_input(case)
    _collect(case, [clean_reply(case)], False)
    [chat] = otel.named("chat ")
    recorded = dict(chat.attributes or {})["gen_ai.input.messages"]
    first = ri["messages"][0]["content"]
    text = first if isinstance(first, str) else json.dumps(first)[:20]
    assert text[:20] in recorded
    everything = repr(
        [(s.name, s.attributes, [e.attributes for e in s.events]) for s in otel.finished()]
    )
    assert case.key not in everything and case.key[-12:] not in everything


@params
@modes
def test_nothing_is_recorded_for_a_run_without_a_provider(case: Case, is_async: bool) -> None:
    """No provider set (the API's defaults): the run goes as ever, no span or metric
    reaches an SDK that was never installed, no trace context goes to the vendor."""
    from opentelemetry import trace

    unused = Otel()  # an SDK pipeline made but never given to toolwire
    telemetry.configure()
    defaults = ("ProxyTracerProvider", "NoOpTracerProvider")
    assert type(trace.get_tracer_provider()).__name__ in defaults
    seen: list[FakeVendor] = []
    events = _collect(case, [clean_reply(case)], is_async, seen)
    assert events[-1].type == EventType.RUN_FINISHED
    assert unused.finished() == []
    assert unused.points("gen_ai.client.operation.duration") == []
    [request] = seen[0].requests
    assert "traceparent" not in {k.lower() for k in request.headers}


def test_the_env_variable_opts_in(monkeypatch: pytest.MonkeyPatch) -> None:
    telemetry.configure()
    monkeypatch.setenv(telemetry.CAPTURE_ENV, "true")
    assert telemetry.capturing_content()
    monkeypatch.setenv(telemetry.CAPTURE_ENV, "false")
    assert not telemetry.capturing_content()
    telemetry.configure(capture_content=True)
    assert telemetry.capturing_content()
    telemetry.configure()


def test_nothing_is_recorded_without_a_provider() -> None:
    telemetry.configure()  # the API's global defaults: no SDK configured in this process
    from opentelemetry import metrics, trace

    assert type(trace.get_tracer_provider()).__name__ in (
        "ProxyTracerProvider",
        "NoOpTracerProvider",
    )
    assert type(metrics.get_meter_provider()).__name__ in (
        "_ProxyMeterProvider",
        "NoOpMeterProvider",
    )
    assert telemetry.start_run(provider="x", model="m", thread_id="t", run_id="r") is None


def test_a_key_in_a_loss_is_masked(otel: Otel) -> None:
    trace = telemetry.start_run(provider="x", model="m", thread_id="t", run_id="r", secrets=[KEY])
    assert trace is not None
    from toolwire.losses import Loss

    trace.loss(Loss(kind="part-dropped", target="x", reason=f"it said {KEY}", part_kind="image"))
    trace.end()
    [run] = otel.finished()
    [event] = run.events
    assert event.name == "toolwire.loss"
    assert event.attributes["toolwire.loss.part"] == "image"
    assert KEY not in repr(event.attributes)


def test_a_tool_span_records_its_failure_and_content_only_when_opted_in(otel: Otel) -> None:
    trace = telemetry.start_run(provider="x", model="m", thread_id="t", run_id="r", secrets=[KEY])
    assert trace is not None
    with trace.tool("get_weather", "call_1", '{"city":"Oslo"}') as tool:
        tool.result("sunny")
    with pytest.raises(ValueError), trace.tool("boom", "call_2"):
        raise ValueError("no")
    trace.end()
    spans = {s.name: s for s in otel.finished()}
    ok = spans["execute_tool get_weather"]
    assert dict(ok.attributes or {})["gen_ai.tool.call.id"] == "call_1"
    assert "gen_ai.tool.call.arguments" not in (ok.attributes or {})
    assert "gen_ai.tool.call.result" not in (ok.attributes or {})
    bad = spans["execute_tool boom"]
    assert bad.status.status_code is StatusCode.ERROR
    assert dict(bad.attributes or {})["error.type"] == "ValueError"


def _explode(city: str) -> str:
    """A backend tool that fails.

    Args:
        city: the city's name
    """
    raise RuntimeError(f"no weather for {city}")


@params
@modes
def test_a_tool_loop_is_one_run_span_with_a_chat_span_per_turn_and_a_failed_tool_span(
    case: Case, is_async: bool, otel: Otel
) -> None:
    from _agent_support import agent_input, turn

    v = case.vendor
    call_id = vendor_call_id(case, "call_w")  # as the vendor gives it (Mistral: 9 characters)
    script = [
        turn(v, [(call_id, "_explode", {"city": "Oslo"})], message_id="msg_1"),
        turn(v, [], text="Sorry, no weather.", message_id="msg_2"),
    ]
    # the scripted calls carry no thought signature: Gemini 3 wants one, so the second
    # request announces the placeholder it sends instead
    signed = (
        pytest.warns(ContentLossWarning, match="thought-signature-missing")
        if v == "gemini"
        else contextlib.nullcontext()
    )
    with FakeVendor(script, timeout=30) as fv, signed:
        events = run_case(case, fv, agent_input(), is_async, tools=[_explode])
    assert events[-1].type == EventType.RUN_FINISHED
    [run] = otel.named("invoke_agent")
    chats = otel.named("chat ")
    [tool] = otel.named("execute_tool")
    assert len(chats) == 2  # the call, then the answer after the tool's error result
    for span in (*chats, tool):
        assert span.parent is not None and span.parent.span_id == run.context.span_id
    attrs = dict(tool.attributes or {})
    assert tool.name == "execute_tool _explode"
    assert attrs["gen_ai.operation.name"] == "execute_tool"
    assert attrs["gen_ai.tool.name"] == "_explode"
    assert attrs["gen_ai.tool.call.id"] == call_id
    assert attrs["error.type"] == "RuntimeError"
    assert tool.status.status_code is StatusCode.ERROR
    assert "gen_ai.tool.call.arguments" not in attrs  # content only when opted in
    assert run.status.status_code is StatusCode.UNSET  # the run itself went on and finished
    durations = otel.points("gen_ai.client.operation.duration")
    assert sum(p.count for _, p in durations) == 2
