"""Credentials out of cassettes: filter what is known, then refuse what still looks like one.

Recording runs two layers. The filters drop the request and response headers, query parameters
and body fields that carry credentials in the vendors' wire formats (``Authorization``,
``x-api-key``, ``x-goog-api-key``, ``key=``, cookies, OpenAI organization/project, an OAuth
token exchange's tokens). Then, before a cassette is written, :func:`find_secrets` scans every
header, URL and body for values shaped like a key (``sk-…``, ``AIza…``, ``ya29.…``, a JWT, a
``Bearer`` credential) and the write is refused, naming where, if one survived: a filter missed
it, so a person must look. A key is a whole token, so a match must stand alone; that keeps base64
media (an image, a PDF, a signature), where such letters occur inside a longer run, from being
reported. Values are never quoted in a report, only their kind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from toolwire import adapters
from toolwire.errors import SecretInCassette
from toolwire.matching import SECRET_QUERY_KEYS
from toolwire.protocol.redact import SECRET_HEADERS, is_credential_name
from toolwire.testing.jsonwalk import slots


def _from_clients() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(account headers, credential headers, credential query keys) every model adapter's
    ``CLIENT`` names (the registry as installed when the cassette kit is imported)."""
    account: set[str] = set()
    credential: set[str] = set()
    query: set[str] = set()
    for name in adapters.model_names():
        client = adapters.client(name)
        account |= {h.lower() for h in client.account_headers}
        credential |= {h.lower() for h in client.secret_headers}
        query |= {k.lower() for k in client.secret_query_keys}
    return frozenset(account), frozenset(credential), frozenset(query)


_ACCOUNT, _CREDENTIAL, _QUERY = _from_clients()

#: Headers that name the account (not a credential, but not for a shared cassette either):
#: every model adapter's ``CLIENT.account_headers``.
ACCOUNT_HEADERS = _ACCOUNT

#: Request headers dropped when recording: the credential headers every message is redacted of
#: (``protocol.redact.SECRET_HEADERS``, less the response-only ``set-cookie``), each vendor's
#: (``CLIENT.secret_headers``) and the account's.
REQUEST_HEADERS = (frozenset(SECRET_HEADERS) - {"set-cookie"}) | _CREDENTIAL | ACCOUNT_HEADERS

#: Response headers that name the account or set a session; dropped when recording.
RESPONSE_HEADERS = frozenset({"set-cookie"}) | ACCOUNT_HEADERS

#: URL query keys whose value is a credential: the shared ones and each vendor's.
QUERY_KEYS = SECRET_QUERY_KEYS | _QUERY

#: JSON / form body fields whose value is a credential (an OAuth token exchange, a key echo).
BODY_FIELDS = frozenset(
    {
        "access_token",
        "refresh_token",
        "id_token",
        "client_secret",
        "api_key",
        "apikey",
        "apiKey",
        "private_key",
        "assertion",
    }
)

FILTERED = "FILTERED"

# A key is a token on its own: not preceded or followed by a character a token or base64 run
# holds. Inside a base64 image the same letters sit in a longer run and never stand alone.
_B = r"A-Za-z0-9+/_\-"
_TOKEN_SHAPES = (
    # each model adapter's key shapes first (``CLIENT.key_shapes``), then the general ones
    *dict.fromkeys(
        shape for name in adapters.model_names() for shape in adapters.client(name).key_shapes
    ),
    (
        "a JSON Web Token (eyJ….eyJ….…)",
        r"eyJ[A-Za-z0-9_\-]{8,4000}\.eyJ[A-Za-z0-9_\-]{8,8000}\.[A-Za-z0-9_\-]{8,4000}",
    ),
    ("an AWS access key id (AKIA…)", r"AKIA[0-9A-Z]{16}"),
    ("a GitHub token (gh?_…)", r"gh[pousr]_[A-Za-z0-9]{36,255}"),
)
_SHAPES: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(rf"(?<![{_B}]){body}(?![{_B}])")) for kind, body in _TOKEN_SHAPES
]
_SHAPES.append(
    ("a private key (-----BEGIN … PRIVATE KEY-----)", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY"))
)

# In a header or URL, any Bearer/Basic credential is one, whatever its shape.
_SCHEME_CREDENTIAL = re.compile(r"(?i)\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=\-]{8,}")
_SCHEME_PREFIX = re.compile(r"(?i)^(?:bearer|basic|token)\s+")


def _lower_keys(headers: Mapping[str, Any], drop: frozenset[str]) -> dict[str, Any]:
    """``headers`` without the ``drop`` ones and any whose name says it holds a credential
    (``X-Upstream-Credential``, ``X-Auth``, ``X-Amz-Security-Token``, ...)."""
    return {
        k: v
        for k, v in headers.items()
        if str(k).lower() not in drop and not is_credential_name(str(k))
    }


def filtered_uri(uri: str) -> str:
    """The URI without ``user:password@`` and without credential query parameters (``key=``,
    ``access_token=``, signed-URL and OAuth ones: ``sig``, ``X-Goog-Signature``,
    ``X-Amz-Signature``, ``client_secret``, any name that says credential)."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return uri
    if "@" in parts.netloc:
        parts = parts._replace(netloc=parts.netloc.rsplit("@", 1)[1])
    if not parts.query:
        return urlunsplit(parts)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if not is_credential_name(k) and k.lower() not in QUERY_KEYS]
    if len(kept) == len(pairs):
        return urlunsplit(parts)
    return urlunsplit(parts._replace(query=urlencode(kept)))


def _filter_value(value: Any) -> Any:
    """A JSON value with the credential fields' values replaced."""
    for holder, key in slots(value):
        node = holder[key]
        if isinstance(holder, dict) and key in BODY_FIELDS and isinstance(node, str) and node:
            holder[key] = FILTERED
    return value


def filtered_body(body: bytes | str | None, content_type: str = "") -> bytes | str | None:
    """A JSON or form body with credential fields filtered; anything else as it was."""
    if not body:
        return body
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if not any(f in text for f in BODY_FIELDS):
        return body
    if "x-www-form-urlencoded" in content_type:
        pairs = parse_qsl(text, keep_blank_values=True)
        out = urlencode([(k, FILTERED if k in BODY_FIELDS and v else v) for k, v in pairs])
        return out.encode() if isinstance(body, bytes) else out
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return body
    out = json.dumps(_filter_value(value), ensure_ascii=False, separators=(",", ":"))
    return out.encode("utf-8") if isinstance(body, bytes) else out


def _header(headers: Mapping[str, Any], name: str) -> str:
    for k, v in headers.items():
        if str(k).lower() == name:
            return str(v[0] if isinstance(v, list) and v else v)
    return ""


def filter_request(request: Any) -> Any:
    """vcrpy ``before_record_request``: drop credential headers, query parameters, body fields."""
    request.headers = _lower_keys(dict(request.headers), REQUEST_HEADERS)
    request.uri = filtered_uri(request.uri)
    body = request.body
    if isinstance(body, (bytes, str)):
        request.body = filtered_body(body, _header(request.headers, "content-type"))
    return request


def filter_response(response: dict[str, Any]) -> dict[str, Any]:
    """vcrpy ``before_record_response``: drop account headers and credential body fields."""
    headers = response.get("headers") or {}
    response["headers"] = _lower_keys(headers, RESPONSE_HEADERS)
    body = response.get("body")
    if isinstance(body, dict) and isinstance(body.get("string"), (bytes, str)):
        body["string"] = filtered_body(body["string"], _header(headers, "content-type"))
    return response


def response_header_filter(names: frozenset[str]) -> Any:
    """A ``before_record_response`` hook dropping the response headers ``names`` (lower case)."""

    def drop(response: dict[str, Any]) -> dict[str, Any]:
        if names:
            response["headers"] = _lower_keys(response.get("headers") or {}, names)
        return response

    return drop


# --------------------------------------------------------------------------- scanning


def _shape(text: str) -> str | None:
    for kind, pattern in _SHAPES:
        if pattern.search(text):
            return kind
    return None


def _strings(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """Every string in a JSON value (keys too) with its path, iteratively."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        at, node = stack.pop()
        if isinstance(node, str):
            yield at, node
        elif isinstance(node, dict):
            for k, v in node.items():
                yield at, str(k)
                stack.append((f"{at}.{k}", v))
        elif isinstance(node, list):
            stack.extend((f"{at}[{i}]", v) for i, v in enumerate(node))


def _body_strings(body: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(body, dict) and "string" in body:
        body = body["string"]
    if body is None:
        return
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if not isinstance(body, str):
        yield from _strings(body, where)
        return
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, (dict, list)):
        yield from _strings(value, where)
        return
    for n, line in enumerate(body.split("\n"), 1):
        yield f"{where} line {n}", line


def _credential_like(value: str) -> bool:
    """Long enough and mixed enough to be a credential, not a placeholder (``REDACTED``)."""
    core = _SCHEME_PREFIX.sub("", value).strip()
    return len(core) >= 16 and any(c.isdigit() for c in core) and any(c.isalpha() for c in core)


def _scheme_credential(text: str) -> bool:
    return any(_credential_like(m.group(0)) for m in _SCHEME_CREDENTIAL.finditer(text))


def _header_findings(headers: Any, where: str) -> Iterator[str]:
    if not isinstance(headers, Mapping):
        return
    for name, values in headers.items():
        for value in values if isinstance(values, list) else [values]:
            text = str(value)
            label = f"{where} header {name}"
            if is_credential_name(str(name)) and _credential_like(text):
                yield f"{label}: a header named for a credential still has a value"
            elif _scheme_credential(text):
                yield f"{label}: a Bearer/Basic credential"
            elif kind := _shape(text):
                yield f"{label}: {kind}"


def _url_findings(uri: str) -> Iterator[str]:
    """A password in the URL's userinfo, a query parameter named for a credential."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return
    if "@" in parts.netloc:
        yield "a user:password@ in the URL"
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if value and (is_credential_name(name) or name.lower() in QUERY_KEYS):
            yield f"the query parameter {name!r} is named for a credential"


def find_secrets(requests: list[Any], responses: list[Any]) -> list[str]:
    """Where a key-shaped value remains in a cassette's interactions (empty: none).

    ``requests`` are vcrpy ``Request`` objects or their dicts, ``responses`` vcrpy response
    dicts. Each finding names the interaction, the place and the kind of value, never the value.
    """
    found: list[str] = []
    for i, (req, resp) in enumerate(zip(requests, responses, strict=True)):
        r = req._to_dict() if hasattr(req, "_to_dict") else req
        uri = str(r.get("uri", ""))
        if _scheme_credential(uri) or (kind := _shape(uri)):
            found.append(f"interaction {i}: request URL: {kind or 'a credential'}")
        found.extend(f"interaction {i}: request URL: {f}" for f in _url_findings(uri))
        found.extend(f"interaction {i}: {f}" for f in _header_findings(r.get("headers"), "request"))
        for at, text in _body_strings(r.get("body"), "request body"):
            if kind := _shape(text):
                found.append(f"interaction {i}: {at}: {kind}")
        if isinstance(resp, Mapping):
            found.extend(
                f"interaction {i}: {f}" for f in _header_findings(resp.get("headers"), "response")
            )
            for at, text in _body_strings(resp.get("body"), "response body"):
                if kind := _shape(text):
                    found.append(f"interaction {i}: {at}: {kind}")
    return found


def refuse_secrets(path: str, requests: list[Any], responses: list[Any]) -> None:
    """Raise :class:`SecretInCassette` naming every place a key-shaped value survived."""
    found = find_secrets(requests, responses)
    if found:
        raise SecretInCassette(path, found)


__all__ = [
    "BODY_FIELDS",
    "FILTERED",
    "QUERY_KEYS",
    "REQUEST_HEADERS",
    "RESPONSE_HEADERS",
    "filter_request",
    "filter_response",
    "filtered_body",
    "filtered_uri",
    "find_secrets",
    "refuse_secrets",
    "response_header_filter",
]
