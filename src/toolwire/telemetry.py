"""OpenTelemetry spans and metrics for toolwire's runs, after the GenAI semantic conventions.

toolwire sees what a model call did (vendor, model, usage, finish reason, every tool call,
the retries, the losses); this module tells the application's OpenTelemetry set-up. It uses
the OpenTelemetry *API* only (the ``telemetry`` extra): with the API's default providers, or
without the package at all, nothing is recorded and nothing costs more than a check per run.

What is recorded:

- a span per run (``invoke_agent toolwire``), a child ``chat {model}`` span (kind CLIENT) per
  model call, with the conventions' request and response attributes; each retry is an event
  on the model call's span (``toolwire.retry``: ``error.type``, the attempt, the wait), each
  loss an event on the span it happened under (``toolwire.loss``: kind, part, target);
- a span per backend tool execution (``execute_tool {name}``);
- the histograms ``gen_ai.client.token.usage`` ({token}) and
  ``gen_ai.client.operation.duration`` (s), with the conventions' advisory buckets.

Message content (prompts, arguments, results) is recorded only when the application opts
in (:func:`configure` ``capture_content=True``, or the conventions' environment variable
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``); credentials are masked from
every recorded text whatever it opts into.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast
from urllib.parse import urlsplit

from toolwire.protocol.redact import redact

if TYPE_CHECKING:
    from ag_ui.core import TokenUsage

    from toolwire.losses import Loss

#: The conventions' opt-in for message content.
CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
#: The instrumentation scope every span and metric is recorded under.
SCOPE = "toolwire"

#: ``gen_ai.client.token.usage`` buckets, as the conventions advise
TOKEN_BUCKETS = (
    1,
    4,
    16,
    64,
    256,
    1024,
    4096,
    16384,
    65536,
    262144,
    1048576,
    4194304,
    16777216,
    67108864,
)
#: ``gen_ai.client.operation.duration`` buckets (seconds), as the conventions advise
DURATION_BUCKETS = (
    0.01,
    0.02,
    0.04,
    0.08,
    0.16,
    0.32,
    0.64,
    1.28,
    2.56,
    5.12,
    10.24,
    20.48,
    40.96,
    81.92,
)


@dataclass
class _Settings:
    capture_content: bool | None = None  # None: the environment variable decides
    tracer_provider: Any = None  # None: the global one
    meter_provider: Any = None


_settings = _Settings()


def configure(
    *,
    capture_content: bool | None = None,
    tracer_provider: Any = None,
    meter_provider: Any = None,
) -> None:
    """Set how toolwire reports: whether message content is recorded (``None``: as the
    environment variable says, off by default), and providers other than the global ones
    (for tests, or an application that keeps its own)."""
    _settings.capture_content = capture_content
    _settings.tracer_provider = tracer_provider
    _settings.meter_provider = meter_provider
    _Instruments.cache.clear()


def capturing_content() -> bool:
    """Whether message content is recorded now."""
    if _settings.capture_content is not None:
        return _settings.capture_content
    return os.environ.get(CAPTURE_ENV, "").strip().lower() in ("true", "1", "yes")


def _api() -> Any:
    """The OpenTelemetry API modules, or None where the package is not installed."""
    try:
        from opentelemetry import metrics, propagate, trace
    except ImportError:
        return None
    return trace, metrics, propagate


class _Instruments:
    """The tracer and the two histograms, made once per pair of providers."""

    cache: ClassVar[dict[tuple[Any, Any], _Instruments]] = {}

    def __init__(self, trace: Any, metrics: Any) -> None:
        tp = _settings.tracer_provider
        mp = _settings.meter_provider
        version = _version()
        self.tracer = (tp or trace.get_tracer_provider()).get_tracer(SCOPE, version)
        meter = (mp or metrics.get_meter_provider()).get_meter(SCOPE, version)
        self.tokens = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used",
            explicit_bucket_boundaries_advisory=TOKEN_BUCKETS,
        )
        self.duration = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="Duration of a model call",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )

    @classmethod
    def get(cls) -> tuple[_Instruments, Any] | None:
        api = _api()
        if api is None:
            return None
        trace, metrics, _ = api
        tp = _settings.tracer_provider or trace.get_tracer_provider()
        mp = _settings.meter_provider or metrics.get_meter_provider()
        key = (tp, mp)  # held: an id could be reused once a provider is gone
        found = cls.cache.get(key)
        if found is None:
            found = cls.cache[key] = _Instruments(trace, metrics)
        return found, api


def _version() -> str | None:
    """toolwire's installed version (the instrumentation scope's)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("toolwire")
    except PackageNotFoundError:
        return None


def server_of(base_url: str | None) -> dict[str, Any]:
    """``server.address`` and ``server.port`` of a vendor's base URL (the scheme's port
    when it names none)."""
    if not base_url:
        return {}
    try:
        parts = urlsplit(base_url)
        port = parts.port
    except ValueError:
        return {}
    if not parts.hostname:
        return {}
    out: dict[str, Any] = {"server.address": parts.hostname}
    port = port or {"https": 443, "http": 80}.get(parts.scheme)
    if port is not None:
        out["server.port"] = port
    return out


def _total(usage: Iterable[TokenUsage], field: str) -> int | None:
    values = [v for u in usage if isinstance(v := getattr(u, field, None), int)]
    return sum(values) if values else None


class ModelCall:
    """The span of one model call (all its attempts) and what it measured."""

    def __init__(self, run: RunTrace, span: Any, started: float) -> None:
        self._run = run
        self.span = span
        self._started = started
        self._ended = False

    def headers(self) -> dict[str, str]:
        """The trace context of this call as HTTP headers (``traceparent``...), for the
        vendor request; empty when nothing is recorded."""
        if not self.span.is_recording():
            return {}
        trace, _, propagate = self._run.api
        carrier: dict[str, str] = {}
        propagate.inject(carrier, context=trace.set_span_in_context(self.span))
        return carrier

    def current(self) -> AbstractContextManager[Any]:
        """This call's span as the current one while the SDK sends the request, so an
        SDK's own spans (and its propagation) nest under it."""
        trace = self._run.api[0]
        return cast(
            "AbstractContextManager[Any]",
            trace.use_span(
                self.span, end_on_exit=False, record_exception=False, set_status_on_exception=False
            ),
        )

    def retry(self, error_type: str, attempt: int, wait: float) -> None:
        if self.span.is_recording():
            attrs = {"error.type": error_type, "toolwire.attempt": attempt, "toolwire.wait": wait}
            self.span.add_event("toolwire.retry", attributes=self._run.clean(attrs))

    def end(
        self,
        *,
        usage: Sequence[TokenUsage] = (),
        response_id: str | None = None,
        finish_reason: str | None = None,
        error_type: str | None = None,
    ) -> None:
        """End the span and record the metrics (once; later calls do nothing)."""
        if self._ended:
            return
        self._ended = True
        run = self._run
        input_tokens = _total(usage, "input_tokens")
        output_tokens = _total(usage, "output_tokens")
        models = [u.model for u in usage if getattr(u, "model", None)]
        attrs: dict[str, Any] = {}
        if models:
            attrs["gen_ai.response.model"] = models[-1]
        if response_id:
            attrs["gen_ai.response.id"] = response_id
        if finish_reason:
            attrs["gen_ai.response.finish_reasons"] = [finish_reason]
        if input_tokens is not None:
            attrs["gen_ai.usage.input_tokens"] = input_tokens
        if output_tokens is not None:
            attrs["gen_ai.usage.output_tokens"] = output_tokens
        if error_type:
            attrs["error.type"] = error_type
        span = self.span
        if span.is_recording():
            span.set_attributes(run.clean(attrs))
            if error_type:
                trace = run.api[0]
                span.set_status(trace.Status(trace.StatusCode.ERROR, run.clean(error_type)))
        span.end()
        # the metrics' attributes: the conventions' low-cardinality ones
        base = {k: v for k, v in run.call_attributes.items() if k != "gen_ai.conversation.id"}
        if "gen_ai.response.model" in attrs:
            base["gen_ai.response.model"] = attrs["gen_ai.response.model"]
        duration_attrs = {**base, **({"error.type": error_type} if error_type else {})}
        run.instruments.duration.record(
            time.monotonic() - self._started, attributes=run.clean(duration_attrs)
        )
        for kind, count in (("input", input_tokens), ("output", output_tokens)):
            if count is not None:
                run.instruments.tokens.record(
                    count, attributes=run.clean({**base, "gen_ai.token.type": kind})
                )


class RunTrace:
    """One run's telemetry: its span, its model calls' spans, its tools' spans."""

    def __init__(
        self,
        instruments: _Instruments,
        api: Any,
        *,
        provider: str,
        model: str,
        thread_id: str,
        run_id: str,
        base_url: str | None,
        secrets: Sequence[str],
        messages: Any = None,
    ) -> None:
        self.instruments = instruments
        self.api = api
        self.secrets = list(secrets)
        self.call_attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": model,
            "gen_ai.conversation.id": thread_id,
            **server_of(base_url),
        }
        self._messages = messages
        trace = api[0]
        self.span = instruments.tracer.start_span(
            "invoke_agent toolwire",
            kind=trace.SpanKind.INTERNAL,
            attributes=self.clean(
                {
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.agent.name": "toolwire",
                    "gen_ai.provider.name": provider,
                    "gen_ai.request.model": model,
                    "gen_ai.conversation.id": thread_id,
                    "toolwire.run_id": run_id,
                }
            ),
        )
        self.call: ModelCall | None = None
        self._ended = False

    def clean(self, value: Any) -> Any:
        """``value`` with every credential the run knows of masked."""
        return redact(value, self.secrets)

    def start_call(self) -> ModelCall:
        """The span of the next model call, a child of the run's."""
        trace = self.api[0]
        attrs = dict(self.call_attributes)
        if self._messages is not None and capturing_content():
            attrs["gen_ai.input.messages"] = _json(self._messages)
        span = self.instruments.tracer.start_span(
            f"chat {attrs['gen_ai.request.model']}",
            context=trace.set_span_in_context(self.span),
            kind=trace.SpanKind.CLIENT,
            attributes=self.clean(attrs),
        )
        self.call = ModelCall(self, span, time.monotonic())
        return self.call

    def loss(self, loss: Loss) -> None:
        """A loss as an event on the span it happened under (the model call's while one
        is open, else the run's)."""
        span = self.call.span if self.call is not None and not self.call._ended else self.span
        if span.is_recording():
            attrs: dict[str, Any] = {
                "toolwire.loss.kind": loss.kind,
                "toolwire.loss.target": loss.target,
                "toolwire.loss.message": loss.message,
            }
            if loss.part_kind is not None:
                attrs["toolwire.loss.part"] = loss.part_kind
            if loss.part_index is not None:
                attrs["toolwire.loss.part_index"] = loss.part_index
            if loss.tool_call_id is not None:
                attrs["gen_ai.tool.call.id"] = loss.tool_call_id
            span.add_event("toolwire.loss", attributes=self.clean(attrs))

    @contextmanager
    def tool(self, name: str, call_id: str, arguments: str | None = None) -> Iterator[ToolSpan]:
        """The span of one backend tool execution, a child of the run's."""
        trace = self.api[0]
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "function",
        }
        if arguments is not None and capturing_content():
            attrs["gen_ai.tool.call.arguments"] = arguments
        span = self.instruments.tracer.start_span(
            f"execute_tool {name}",
            context=trace.set_span_in_context(self.span),
            kind=trace.SpanKind.INTERNAL,
            attributes=self.clean(attrs),
        )
        out = ToolSpan(self, span)
        try:
            yield out
        except BaseException as exc:
            out.failed(type(exc).__name__)
            raise
        finally:
            span.end()

    def end(self, error_type: str | None = None) -> None:
        if self._ended:
            return
        self._ended = True
        if self.call is not None:
            self.call.end(error_type=error_type)
        if error_type and self.span.is_recording():
            trace = self.api[0]
            self.span.set_attribute("error.type", self.clean(error_type))
            self.span.set_status(trace.Status(trace.StatusCode.ERROR, self.clean(error_type)))
        self.span.end()


class ToolSpan:
    """What a tool execution may add to its span: its result, or its failure."""

    def __init__(self, run: RunTrace, span: Any) -> None:
        self._run = run
        self.span = span

    def result(self, content: Any) -> None:
        if content is not None and capturing_content() and self.span.is_recording():
            self.span.set_attribute("gen_ai.tool.call.result", self._run.clean(_json(content)))

    def failed(self, error_type: str) -> None:
        if self.span.is_recording():
            trace = self._run.api[0]
            self.span.set_attribute("error.type", self._run.clean(error_type))
            self.span.set_status(trace.Status(trace.StatusCode.ERROR, self._run.clean(error_type)))


def _json(value: Any) -> str:
    if isinstance(value, str):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        value = dump(mode="json", by_alias=True, exclude_none=True)
    elif isinstance(value, list):
        value = [
            v.model_dump(mode="json", by_alias=True, exclude_none=True)
            if callable(getattr(v, "model_dump", None))
            else v
            for v in value
        ]
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def start_run(
    *,
    provider: str,
    model: str,
    thread_id: str,
    run_id: str,
    base_url: str | None = None,
    secrets: Sequence[str] = (),
    messages: Any = None,
) -> RunTrace | None:
    """The telemetry of a run about to start, or None when nothing would be recorded
    (no OpenTelemetry API installed, or the default providers that record nothing)."""
    found = _Instruments.get()
    if found is None:
        return None
    instruments, api = found
    run = RunTrace(
        instruments,
        api,
        provider=provider,
        model=model,
        thread_id=thread_id,
        run_id=run_id,
        base_url=base_url,
        secrets=secrets,
        messages=messages,
    )
    if not run.span.is_recording() and not _meters_record(api):
        run.span.end()
        return None
    return run


def _meters_record(api: Any) -> bool:
    """Whether a meter provider other than the API's no-op one is in place."""
    metrics = api[1]
    mp = _settings.meter_provider or metrics.get_meter_provider()
    name = type(mp).__name__
    return name not in ("NoOpMeterProvider", "_ProxyMeterProvider")


__all__ = [
    "CAPTURE_ENV",
    "DURATION_BUCKETS",
    "TOKEN_BUCKETS",
    "ModelCall",
    "RunTrace",
    "ToolSpan",
    "capturing_content",
    "configure",
    "server_of",
    "start_run",
]
