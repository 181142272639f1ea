"""Which adapter a client takes, and how its SDK is asked for one streamed turn.

Everything about a vendor's SDK is its adapter's ``CLIENT`` (``adapters/<name>/client.py``):
which clients it claims, how it opens a stream with the SDK's own retries off, what it
adds to the request. This module only asks the registry; it names no vendor.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from toolwire import adapters
from toolwire.adapters.contract import ModelAdapter, VendorClient
from toolwire.errors import UnsupportedInput
from toolwire.protocol.surface import Encoded


@dataclass(frozen=True)
class Plan:
    """One vendor call worked out: the adapter, the request, and how to stream it."""

    vendor: str
    adapter: ModelAdapter
    body: Encoded
    is_async: bool
    #: whether ``toolwire.arun`` can drive the client (an async one, or one with an async side)
    drives_async: bool
    open_sync: Callable[[], Iterator[Any]]
    open_async: Callable[[], AsyncIterator[Any]]


def _apis() -> list[str]:
    out: list[str] = []
    for name in adapters.model_names():
        api = adapters.client(name).api
        if api is not None and api not in out:
            out.append(api)
    return out


def choose_vendor(client: Any, vendor: str | None, api: str | None) -> str:
    """The adapter for ``client`` (``vendor=`` wins; ``api=`` picks among the adapters that
    share one SDK)."""
    if api is not None:
        apis = _apis()
        if api not in apis:
            choices = " or ".join(repr(a) for a in apis)
            raise UnsupportedInput(f"toolwire.run: api must be {choices}, not {api!r}")
    models = adapters.model_names()
    if vendor is not None:
        key = vendor.replace("-", "_").lower()
        if key not in models:
            raise UnsupportedInput(
                f"toolwire.run: vendor {vendor!r} is not a model vendor; one of {', '.join(models)}"
            )
        return key
    for name in models:
        if adapters.client(name).claims(client, api):
            return name
    sdks = ", ".join(sorted({x for n in models for x in adapters.client(n).extras}))
    raise UnsupportedInput(
        f"toolwire.run: cannot tell the vendor of a {type(client).__name__} client; "
        f"pass a client of one of the SDKs toolwire drives ({sdks}), or vendor="
    )


def is_async_client(client: Any) -> bool:
    """Whether ``client`` is an async client of the vendor it belongs to."""
    name = choose_vendor(client, None, None)
    return adapters.client(name).is_async(client)


def _encode(
    adapter: ModelAdapter,
    sdk: VendorClient,
    client: Any,
    run_input: Any,
    model: str,
    params: dict[str, Any],
) -> Encoded:
    """``encode_request`` with the params it names; the rest go into the request body
    where the vendor's SDK takes them (``CLIENT.add_params``). Its losses come back on
    the body (``Encoded.losses``) for the driver to report."""
    sig = inspect.signature(adapter.encode_request)
    takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    named = {k: v for k, v in params.items() if takes_any or k in sig.parameters}
    rest = {k: v for k, v in params.items() if k not in named}
    for key, value in sdk.encode_options(client).items():
        named.setdefault(key, value)
    body: Encoded = adapter.encode_request(run_input, model=model, **named)
    if rest:
        sdk.add_params(body, rest)
    return body


def plan(
    client: Any,
    run_input: Any,
    *,
    model: str,
    vendor: str | None,
    api: str | None,
    params: dict[str, Any],
) -> Plan:
    """Choose the adapter, encode the request and bind how to stream it."""
    name = choose_vendor(client, vendor, api)
    adapter = adapters.model(name)
    sdk = adapter.CLIENT
    body = _encode(adapter, sdk, client, run_input, model, params)
    return Plan(
        name,
        adapter,
        body,
        sdk.is_async(client),
        sdk.drives_async(client),
        lambda: sdk.stream(client, body),
        lambda: sdk.astream(client, body),
    )


__all__ = ["Plan", "choose_vendor", "is_async_client", "plan"]
