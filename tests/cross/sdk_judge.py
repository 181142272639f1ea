"""How a vendor SDK's own types judge a request body toolwire encoded (the ``sdk_accepts`` of
each ``tests/vendor_<name>/_rules.py`` is built from these).

Validating is not enough: SDK types drop (TypedDicts, pydantic's default) or keep aside
(``extra="allow"``) a key they do not know. So a body must come back from the SDK's types
unchanged, with no field left over as unknown: a key the vendor would not read shows up as a
difference.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
from pydantic import BaseModel, TypeAdapter


def materialize(value: Any) -> Any:
    """Force pydantic's lazy ``Iterable`` validation and return plain data (a union of param
    dicts and response models may hand back a model for a dict: as the fields it set)."""
    if isinstance(value, BaseModel):
        return materialize(value.model_dump(mode="json", by_alias=True, exclude_unset=True))
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or isinstance(value, Iterator):
        return [materialize(v) for v in value]
    if type(value).__name__ == "ValidatorIterator":
        return [materialize(v) for v in value]
    return value


def same(adapter: TypeAdapter[Any], value: Any) -> None:
    """A TypedDict-typed ``value`` comes back from the SDK's types as it went in."""
    # the adapter must outlive the lazy iterators it returns (pydantic-core needs it)
    back = materialize(adapter.validate_python(value))
    if isinstance(value, list) and isinstance(back, list) and len(back) == len(value):
        for i, (b, v) in enumerate(zip(back, value, strict=True)):
            assert b == v, f"[{i}]: the SDK's types made {v!r} into {b!r}"
    assert back == value


def _unknown(value: Any, where: str) -> Iterator[str]:
    if isinstance(value, BaseModel):
        for key in value.model_extra or {}:
            yield f"{where}.{key}"
        for name in type(value).model_fields:
            yield from _unknown(getattr(value, name), f"{where}.{name}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _unknown(item, f"{where}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _unknown(item, f"{where}.{key}")


def takes(adapter: TypeAdapter[Any], value: Any, where: str) -> None:
    """A pydantic-typed ``value`` parses with no unknown field anywhere and dumps back to
    what went in (the fields it set, by their wire names)."""
    parsed = adapter.validate_python(value)
    unknown = list(_unknown(parsed, where))
    assert not unknown, f"fields the SDK does not know: {unknown}"
    back = adapter.dump_python(parsed, mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, list) and isinstance(back, list) and len(back) == len(value):
        for i, (b, v) in enumerate(zip(back, value, strict=True)):
            assert b == v, f"{where}[{i}]: the SDK's types made {v!r} into {b!r}"
    assert back == value, f"{where}: the SDK's types changed the body"


def sends_unchanged(
    client: Callable[[Any], Any], path: str, body: dict[str, Any], reply: dict[str, Any]
) -> None:
    """``client(http_client)``'s ``path`` method (``"messages.create"``) puts ``body`` on the
    wire unchanged (an httpx mock transport answers ``reply``; nothing leaves the process)."""
    seen: list[bytes] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.read())
        return httpx2.Response(200, json=reply)

    method = client(httpx2.Client(transport=httpx2.MockTransport(handler)))
    for name in path.split("."):
        method = getattr(method, name)
    method(**body)
    assert json.loads(seen[0]) == body
