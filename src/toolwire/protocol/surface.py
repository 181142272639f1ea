"""The functions every adapter module offers, written once and bound per adapter.

An adapter defines its ``Decoder`` and ``Encoder``; :func:`stream_surface` gives it
``decode_stream``, ``adecode_stream``, ``encode_stream`` and ``decode_response`` over
them, so the six adapters cannot drift in what they accept. Options are checked
against the class they go to: an unknown keyword is an ``UnsupportedInput`` naming
it (never a bare ``TypeError``). :func:`checked_options` does the same for a
function such as ``encode_request``, :func:`check_choice` for an option's value.
"""

from __future__ import annotations

import functools
import math
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any, NamedTuple, ParamSpec, TypeVar

from ag_ui.core import BaseEvent

from toolwire.errors import UnsupportedInput, VendorDataError
from toolwire.losses import Loss, announce
from toolwire.protocol import finite
from toolwire.protocol._compact_json import check_finite
from toolwire.protocol.decoding import BaseDecoder, adecode_iter, decode_iter, encode_iter
from toolwire.protocol.ids import mint_id
from toolwire.protocol.options import check_options

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


def construct(factory: Callable[..., T], options: dict[str, Any], where: str) -> T:
    """``factory(**options)`` once every option is one it takes."""
    check_options(factory, options, where)
    return factory(**options)


def checked_options(vendor: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate an adapter function so an unknown keyword raises ``UnsupportedInput``.

    The wrapper keeps the function's signature (``inspect.signature`` follows it),
    so the contract test and the docs read the real parameters.
    """

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        where = f"{vendor}.{fn.__name__}"

        @functools.wraps(fn)
        def inner(*args: P.args, **kwargs: P.kwargs) -> R:
            check_options(fn, kwargs, where)
            return fn(*args, **kwargs)

        return inner

    return wrap


def check_choice(value: object, allowed: Iterable[str], *, option: str, where: str) -> None:
    """Raise ``UnsupportedInput`` when ``value`` is not one of ``allowed``."""
    choices = tuple(allowed)
    if value not in choices:
        listed = " or ".join(repr(c) for c in choices)
        raise UnsupportedInput(f"{where}: {option} must be {listed}, not {value!r}")


class Encoded(dict[str, Any]):
    """A request body (a plain dict to every caller) that also holds what it could not carry.

    ``encode_request`` returns one: ``body.losses`` lists this call's losses, so a caller
    reads them as a value instead of passing a list in (``losses=`` still works).
    """

    losses: list[Loss]

    def __init__(self, body: dict[str, Any], losses: list[Loss]) -> None:
        super().__init__(body)
        self.losses = losses


def returns_encoded(fn: Callable[P, dict[str, Any]]) -> Callable[P, Encoded]:
    """Decorate an ``encode_request(..., losses=None)``: it returns an :class:`Encoded`.

    The function only collects its losses (into a list of this wrapper's); here, at the
    surface, each is warned about once, pointing at the caller, and a caller's
    ``losses=`` list gets them appended, as before.
    """

    @functools.wraps(fn)
    def inner(*args: P.args, **kwargs: P.kwargs) -> Encoded:
        given = kwargs.get("losses")
        found: list[Loss] = []
        kwargs["losses"] = found
        body = fn(*args, **kwargs)
        announce(found)
        if isinstance(given, list):
            given.extend(found)
        return Encoded(body, found)

    return inner


def encode_surface(vendor: str) -> Callable[[Callable[P, dict[str, Any]]], Callable[P, Encoded]]:
    """Both decorators every ``encode_request`` (and MCP's ``encode_*``) wears, in their
    order: unknown keywords raise (:func:`checked_options`), the body comes back as an
    :class:`Encoded` and its losses are warned about once (:func:`returns_encoded`)."""

    def wrap(fn: Callable[P, dict[str, Any]]) -> Callable[P, Encoded]:
        return checked_options(vendor)(returns_encoded(_finite(vendor, fn)))

    return wrap


def _finite(vendor: str, fn: Callable[P, dict[str, Any]]) -> Callable[P, dict[str, Any]]:
    """``fn``, its body refused when it holds NaN or an infinity: JSON has no such number,
    so the body would be invalid JSON (a state, a tool schema, a result the caller gave).

    The body is walked only when something that entered it may hold one (``finite``: the
    run input's free-form slots, the other arguments, values parsed from text); the walk
    names the place, as it always did."""

    @functools.wraps(fn)
    def inner(*args: P.args, **kwargs: P.kwargs) -> dict[str, Any]:
        entered, token = finite.begin()
        try:
            body = fn(*args, **kwargs)
        finally:
            finite.end(token)
        if entered.scanned and not entered.suspect and finite.options_finite(args, kwargs):
            return body
        where = non_finite_at(body, "request body")
        if where is not None:
            raise VendorDataError(
                vendor,
                where,
                "NaN or an infinity, which JSON cannot hold: the body would be invalid",
            )
        return body

    return inner


def non_finite_at(value: Any, where: str) -> str | None:
    """Where ``value`` holds a float NaN or infinity (a path), or None; iterative, linear."""
    try:
        check_finite(value)  # the C encoder says "all finite" fast; the walk says where
        return None
    except (TypeError, ValueError, RecursionError):
        pass  # a non-finite number, an SDK object or a deep value: the walk decides
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        at, node = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return at
        if isinstance(node, (dict, list, tuple)):
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, dict):
                stack.extend((f"{at}.{k}", v) for k, v in node.items())
            else:
                stack.extend((f"{at}[{i}]", v) for i, v in enumerate(node))
    return None


#: The ``media=`` values every ``encode_request`` takes.
MEDIA_CHOICES = ("drop", "relocate")


def request_ids(
    *,
    thread_id: str | None,
    run_id: str | None,
    thread_seed: Iterable[object],
    run_seed: Iterable[object],
) -> tuple[str, str]:
    """``decode_request``'s thread and run ids: the caller's, else minted from the body.

    The same body gives the same ids (a replay is byte-identical); a thread id the
    vendor sends is passed as the caller's would be.
    """
    return (
        thread_id or mint_id("thread", *thread_seed),
        run_id or mint_id("run", *run_seed),
    )


class StreamSurface(NamedTuple):
    """The four functions an adapter binds from its ``Decoder`` and ``Encoder``."""

    decode_stream: Callable[..., Iterator[BaseEvent]]
    adecode_stream: Callable[..., AsyncIterator[BaseEvent]]
    encode_stream: Callable[..., Iterator[dict[str, Any]]]
    decode_response: Callable[..., list[BaseEvent]]


def stream_surface(
    vendor: str, decoder: Callable[..., BaseDecoder], encoder: Callable[..., Any]
) -> StreamSurface:
    """``decode_stream``, ``adecode_stream``, ``encode_stream``, ``decode_response`` of one
    adapter; ``options`` go to its ``Decoder`` / ``Encoder`` and are checked first."""

    def decode_stream(chunks: Iterable[Any], **options: Any) -> Iterator[BaseEvent]:
        return decode_iter(construct(decoder, options, f"{vendor}.decode_stream"), chunks)

    def adecode_stream(chunks: AsyncIterable[Any], **options: Any) -> AsyncIterator[BaseEvent]:
        return adecode_iter(construct(decoder, options, f"{vendor}.adecode_stream"), chunks)

    def encode_stream(events: Iterable[Any], **options: Any) -> Iterator[dict[str, Any]]:
        return encode_iter(construct(encoder, options, f"{vendor}.encode_stream"), events)

    def decode_response(response: Any, **options: Any) -> list[BaseEvent]:
        d = construct(decoder, options, f"{vendor}.decode_response")
        return [*d.feed_response(response), *d.close()]

    decode_stream.__doc__ = f"{vendor} stream chunks (SDK objects or dicts) -> AG-UI events."
    adecode_stream.__doc__ = f"The async form of ``decode_stream`` ({vendor})."
    encode_stream.__doc__ = f"AG-UI events (models or dicts) -> {vendor} stream chunk dicts."
    decode_response.__doc__ = f"One whole {vendor} response -> the AG-UI events of its turn."
    functions = (decode_stream, adecode_stream, encode_stream, decode_response)
    for fn in functions:
        fn.__qualname__ = fn.__name__
    return StreamSurface(*functions)


__all__ = [
    "MEDIA_CHOICES",
    "Encoded",
    "StreamSurface",
    "check_choice",
    "check_options",
    "checked_options",
    "construct",
    "request_ids",
    "returns_encoded",
    "stream_surface",
]
