"""Is a live request the recorded one? If not, every field where it differs.

One notion of "the same request", shared by everything that replays a recording (the
cassette kit's vcrpy matcher, ``replay()``, the server's replay provider), so a conversation
that replays in one replays in the others:

- method, path and query agree: the API-version prefix of the path is made uniform
  (google-genai 3.x calls ``/v1/`` where older recordings hold ``/v1beta/``) and credentials
  in the query string are ignored;
- the JSON bodies are equal as data (key order and white space do not matter: re-ordering
  keyword arguments in an agent must not break a replay);
- and a recorded body is also taken as its vendor's adapter restates it
  (:func:`restated_body`: ``decode_request`` then ``encode_request`` of the conversation
  keys), so a message recorded as ``"content": "hi"`` is the one toolwire sends as
  ``[{"type": "text", "text": "hi"}]``.

A miss lists every differing field (:func:`differences`), one short reason each, so one
failed replay says everything that changed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from toolwire.protocol.redact import is_credential_name

_VERSION = re.compile(r"^/(v1beta1|v1beta|v1alpha|v1)/")

#: Query parameters that carry credentials: never part of a match, never quoted (these and
#: any other whose name says credential: ``protocol.redact.is_credential_name``).
SECRET_QUERY_KEYS = frozenset({"key", "api-key", "api_key", "access_token", "token"})

_SHOWN = 60  # characters of a differing value quoted in a reason


def normalized_path(path: str) -> str:
    """The request path with its API version prefix made uniform."""
    return _VERSION.sub("/vX/", path)


def _query(query: str) -> list[tuple[str, str]]:
    pairs = parse_qsl(query, keep_blank_values=True)
    return sorted((k, v) for k, v in pairs if not is_credential_name(k))


def _json_or_text(body: bytes | str | None) -> tuple[bool, Any]:
    if body is None:
        return True, None
    raw = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if not raw.strip():
        return True, None
    try:
        return True, json.loads(raw)
    except (ValueError, RecursionError):
        return False, raw


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


class _Missing:
    """The value on the side of a difference where a key is absent."""

    def __repr__(self) -> str:
        return "MISSING"


#: Stands for the absent side in :func:`difference_at` (a key only one value has).
MISSING: Any = _Missing()


def difference_at(recorded: Any, live: Any, where: str = "body") -> tuple[str, Any, Any] | None:
    """``(path, recorded part, live part)`` at the first difference of two JSON values, or ``None``.

    Objects compare by key regardless of order; lists element by element (lists of different
    lengths differ at the list, with both lists given). An absent key is :data:`MISSING`.
    Iterative, so a deeply nested value cannot exhaust the stack; linear in the two values.
    """
    stack: list[tuple[str, Any, Any]] = [(where, recorded, live)]
    while stack:
        at, a, b = stack.pop()
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            only_a = [k for k in a if k not in b]
            if only_a:
                return f"{at}.{only_a[0]}", a[only_a[0]], MISSING
            only_b = [k for k in b if k not in a]
            if only_b:
                return f"{at}.{only_b[0]}", MISSING, b[only_b[0]]
            stack.extend((f"{at}.{k}", a[k], b[k]) for k in reversed(list(a)))
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return at, a, b
            pairs = [(f"{at}[{i}]", x, y) for i, (x, y) in enumerate(zip(a, b, strict=True))]
            stack.extend(reversed(pairs))
        elif (type(a) is not type(b) and not (_is_number(a) and _is_number(b))) or a != b:
            return at, a, b
    return None


def first_difference(recorded: Any, live: Any, where: str = "body") -> str | None:
    """Where two JSON values first differ (``body.messages[1].content``), or ``None``."""
    found = difference_at(recorded, live, where)
    return None if found is None else _reason(*found)


def _reason(at: str, a: Any, b: Any) -> str:
    if b is MISSING:
        return f"{at}: recorded {_show(a)}, missing now"
    if a is MISSING:
        return f"{at}: not recorded, now {_show(b)}"
    if isinstance(a, list) and isinstance(b, list):
        return f"{at}: recorded {len(a)} items, now {len(b)}"
    return f"{at}: recorded {_show(a)}, now {_show(b)}"


def differences(recorded: Any, live: Any, where: str = "body") -> list[str]:
    """Every place two JSON values differ, in document order, one reason each; ``[]`` if equal.

    A key only one side has, and a leaf that differs, are one reason each; lists of different
    lengths are one reason at the list, then their common leading items are compared too (a
    conversation one turn longer that also changed an earlier message says both). Iterative
    and linear in the two values.
    """
    found: list[str] = []
    stack: list[tuple[str, Any, Any]] = [(where, recorded, live)]
    while stack:
        at, a, b = stack.pop()
        if a is MISSING or b is MISSING:
            found.append(_reason(at, a, b))
        elif isinstance(a, Mapping) and isinstance(b, Mapping):
            here = [(f"{at}.{k}", a[k], b[k] if k in b else MISSING) for k in a]
            here.extend((f"{at}.{k}", MISSING, b[k]) for k in b if k not in a)
            stack.extend(reversed(here))
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                found.append(_reason(at, a, b))
            pairs = [(f"{at}[{i}]", x, y) for i, (x, y) in enumerate(zip(a, b, strict=False))]
            stack.extend(reversed(pairs))
        elif (type(a) is not type(b) and not (_is_number(a) and _is_number(b))) or a != b:
            found.append(_reason(at, a, b))
    return found


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _uri_difference(recorded_method: str, recorded_uri: str, method: str, uri: str) -> str | None:
    if recorded_method.upper() != method.upper():
        return f"method: recorded {recorded_method.upper()}, now {method.upper()}"
    ru, lu = urlsplit(recorded_uri), urlsplit(uri)
    if normalized_path(ru.path) != normalized_path(lu.path):
        return f"path: recorded {ru.path}, now {lu.path}"
    rq, lq = _query(ru.query), _query(lu.query)
    if rq != lq:
        return f"query: recorded {_show(dict(rq))}, now {_show(dict(lq))}"
    return None


def body_differences(
    recorded_body: Any, body: Any, *, ignore_body_keys: Iterable[str] = ()
) -> list[str]:
    """Every field where two request bodies (bytes, text, or parsed JSON) differ as data."""
    r_ok, r_val = (True, recorded_body) if _parsed(recorded_body) else _json_or_text(recorded_body)
    l_ok, l_val = (True, body) if _parsed(body) else _json_or_text(body)
    if not (r_ok and l_ok):
        return [] if r_val == l_val else ["body: the bodies differ (not JSON)"]
    skip = set(ignore_body_keys)
    if skip and isinstance(r_val, dict) and isinstance(l_val, dict):
        r_val = {k: v for k, v in r_val.items() if k not in skip}
        l_val = {k: v for k, v in l_val.items() if k not in skip}
    return differences(r_val, l_val)


def _parsed(body: Any) -> bool:
    return isinstance(body, (dict, list))


def request_difference(
    recorded_method: str,
    recorded_uri: str,
    recorded_body: bytes | str | None,
    method: str,
    uri: str,
    body: bytes | str | None,
    *,
    ignore_body_keys: Iterable[str] = (),
) -> str | None:
    """Why a live request is not the recorded one (every difference, ``; ``-joined), or ``None``.

    ``ignore_body_keys`` names top-level body keys left out of the comparison (e.g. a
    ``stream`` flag a replay does not care about). The body is compared as recorded only;
    :class:`Recorded` also takes the adapter's restatement.
    """
    why = _uri_difference(recorded_method, recorded_uri, method, uri)
    if why is not None:
        return why
    found = body_differences(recorded_body, body, ignore_body_keys=ignore_body_keys)
    return "; ".join(found) if found else None


# ------------------------------------------------------- the same conversation


@dataclass(frozen=True)
class Recorded:
    """One recorded request as a replay compares it: its body as recorded and, when its
    vendor's adapter reads it, as that adapter restates it (:func:`restated_body`)."""

    method: str
    uri: str
    body: Any  # parsed JSON, or the raw text of a body that is not JSON, or None
    restated: Any = None

    def differences(
        self, method: str, uri: str, body: Any, *, ignore_body_keys: Iterable[str] = ()
    ) -> list[str]:
        """``[]`` when the live request is this one; else every field where it differs.

        The live body matches when it equals either form of the recorded body; otherwise
        the reasons are those of the nearer form (fewer differences), so a user message
        recorded as a string is never reported against the list toolwire sends.
        """
        why = _uri_difference(self.method, self.uri, method, uri)
        if why is not None:
            return [why]
        return self.body_differences(body, ignore_body_keys=ignore_body_keys)

    def body_differences(self, body: Any, *, ignore_body_keys: Iterable[str] = ()) -> list[str]:
        """The body part of :meth:`differences` (for a matcher that checks the URI apart)."""
        skip = tuple(ignore_body_keys)
        best = body_differences(self.body, body, ignore_body_keys=skip)
        if best and self.restated is not None:
            other = body_differences(self.restated, body, ignore_body_keys=skip)
            if len(other) <= len(best):  # a tie: the form toolwire itself writes
                best = other
        return best


def conversation_keys(vendor: str) -> tuple[str, ...]:
    """The request body keys that hold the conversation, as the vendor's model adapter
    declares them (``CLIENT.conversation_keys``); ``()`` for a peer that is no model adapter
    (its bodies are compared as recorded)."""
    from toolwire import adapters

    if vendor not in adapters.model_names():
        return ()
    return tuple(adapters.client(vendor).conversation_keys)


def vendor_of(method: str, uri: str) -> str | None:
    """The model adapter whose ``MODEL_ROUTE`` this request takes (``None``: none does)."""
    return _vendor_of(method.upper(), urlsplit(uri).path)


@lru_cache(maxsize=64)
def _vendor_of(method: str, path: str) -> str | None:
    from toolwire import adapters
    from toolwire.recordings import Exchange

    probe = Exchange(b"", method=method, uri=f"https://host{path}")
    for name in adapters.model_names():
        if conversation_keys(name) and adapters.get(name).MODEL_ROUTE.admits(probe):
            return name
    return None


def restated_body(vendor: str, body: Any) -> dict[str, Any] | None:
    """``body`` with its conversation (:func:`conversation_keys`) as the vendor's adapter
    writes it: ``decode_request`` then ``encode_request`` with the recorded model. Every
    other key is kept as recorded. ``None`` when the adapter cannot read it back."""
    if not isinstance(body, dict):
        return None
    return _restated(vendor, json.dumps(body, sort_keys=True, ensure_ascii=False))


@lru_cache(maxsize=256)  # the vcrpy matcher asks once per recorded request per live one
def _restated(vendor: str, text: str) -> dict[str, Any] | None:
    from toolwire import adapters
    from toolwire.errors import ToolwireError
    from toolwire.losses import held

    keys = conversation_keys(vendor)
    if not keys:
        return None
    body = json.loads(text)
    adapter = adapters.get(vendor)
    try:
        with held():  # a restatement for comparing; its losses are nobody's
            decoded = adapter.decode_request(body)
            encoded = adapter.encode_request(decoded, model=str(body.get("model") or "recorded"))
    except ToolwireError:
        return None
    out = {k: v for k, v in body.items() if k not in keys}
    out.update({k: encoded[k] for k in keys if encoded.get(k) is not None})
    return out


def recorded(method: str, uri: str, body: Any) -> Recorded:
    """A recorded request with its restatement, for the adapter whose route ``uri`` takes."""
    ok, value = (True, body) if _parsed(body) else _json_or_text(body)
    vendor = vendor_of(method, uri) if ok and isinstance(value, dict) else None
    restated = restated_body(vendor, value) if vendor is not None else None
    return Recorded(method, uri, value, None if restated == value else restated)


__all__ = [
    "MISSING",
    "SECRET_QUERY_KEYS",
    "Recorded",
    "body_differences",
    "conversation_keys",
    "difference_at",
    "differences",
    "first_difference",
    "normalized_path",
    "recorded",
    "request_difference",
    "restated_body",
    "vendor_of",
]
