"""vcrpy glue: replay any cassette (incl. pydantic-ai's ``parsed_body``), record new ones safely.

``replay(path)`` returns a vcrpy context manager in ``record_mode="none"``. Requests match on
method, path (API version made uniform: google-genai 3.x calls ``/v1/`` where older recordings
hold ``/v1beta/``), query without credentials and the JSON body as data, as recorded or as the
vendor's adapter restates it (``toolwire.matching``, the notion the server's replay uses too),
and each recorded interaction plays once, so turn 2 of a conversation gets turn 2's answer.
:func:`make_vcr` is the same configuration for recording too (the pytest plugin uses it):
credentials filtered (``toolwire.testing.secrets``), compressed bodies stored decoded, and a
cassette that still holds a key-shaped value is refused before it is written.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import yaml

from toolwire.errors import SecretInCassette, UnsupportedInput
from toolwire.matching import normalized_path, request_difference
from toolwire.matching import recorded as recorded_request
from toolwire.recordings import load_yaml
from toolwire.testing import secrets

#: Request headers that carry credentials; filtered whenever we record.
FILTER_HEADERS = tuple(sorted(secrets.REQUEST_HEADERS))


class ParsedBodySerializer:
    """A vcrpy serializer that also reads pydantic-ai's ``parsed_body`` mappings."""

    @staticmethod
    def deserialize(cassette_string: str) -> dict[str, Any]:
        data: dict[str, Any] = load_yaml(cassette_string, "cassette")  # bounded aliases
        for inter in data.get("interactions", []):
            for side in ("request", "response"):
                part = inter.get(side, {})
                if "parsed_body" in part:
                    body = json.dumps(part.pop("parsed_body"))
                    part["body"] = body if side == "request" else {"string": body}
                    hdrs = part.get("headers") or {}
                    for k in list(hdrs):
                        if k.lower() in ("content-encoding", "content-length"):
                            del hdrs[k]
        return data

    @staticmethod
    def serialize(cassette_dict: dict[str, Any]) -> str:
        return str(yaml.dump(cassette_dict, Dumper=_ReviewableDumper, **_DUMP))


_DUMP: dict[str, Any] = {"sort_keys": False, "allow_unicode": True, "width": 100}


class _ReviewableDumper(yaml.SafeDumper):
    """Multi-line bodies (SSE streams) as literal blocks, so a cassette reads as the wire did."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    # A block scalar cannot keep \r, trailing blanks or control characters: those stay quoted.
    if "\n" in value.rstrip("\n") and "\r" not in value and " \n" not in value:
        if value.isprintable() or all(c.isprintable() or c in "\n\t" for c in value):
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_str(value)


_ReviewableDumper.add_representer(str, _str)


def _path_matcher(r1: Any, r2: Any) -> None:
    assert normalized_path(r1.path) == normalized_path(r2.path)


def request_matchers(ignore_body_keys: tuple[str, ...] = ()) -> dict[str, Any]:
    """vcrpy matchers on path + query and on the JSON body; each AssertionError names the field.

    Two matchers, not one, so that vcrpy's report of the closest recorded request can tell a
    request to another endpoint from the same call with a different body.
    """

    def tw_uri(live: Any, recorded: Any) -> None:
        reason = request_difference("", recorded.uri, None, "", live.uri, None)
        if reason is not None:
            raise AssertionError(reason)

    def tw_body(live: Any, recorded: Any) -> None:
        # the one notion of the same request (toolwire.matching), every difference named
        found = recorded_request(recorded.method, recorded.uri, recorded.body).body_differences(
            live.body, ignore_body_keys=ignore_body_keys
        )
        if found:
            raise AssertionError("; ".join(found))

    return {"tw_uri": tw_uri, "tw_body": tw_body}


def _decoded(response: dict[str, Any]) -> dict[str, Any]:
    """A response whose body is still compressed after vcrpy's decoding cannot be reviewed."""
    headers = response.get("headers") or {}
    for k, v in headers.items():
        if str(k).lower() == "content-encoding":
            values = [x for x in (v if isinstance(v, list) else [v]) if x and x != "identity"]
            if values:
                raise UnsupportedInput(
                    f"a recorded response is {', '.join(values)}-encoded and could not be "
                    "decoded (for br install brotli): refusing to store an unreadable body"
                )
    return response


#: After vcrpy's own decoding: refuse a body still compressed, then filter account headers.
RESPONSE_HOOKS = (_decoded, secrets.filter_response)


class ScanningPersister:
    """vcrpy's filesystem persister, refusing to write a cassette a key-shaped value survived in.

    The refusal is kept in :attr:`refused`, not raised: vcrpy saves before it removes its
    patches, so an exception from here would leave every HTTP client patched. The cassette kit
    raises it once the cassette is closed.
    """

    def __init__(self) -> None:
        self.refused: SecretInCassette | None = None

    def load_cassette(self, cassette_path: str, serializer: Any) -> Any:
        from vcr.persisters.filesystem import FilesystemPersister  # type: ignore[import-untyped]

        return FilesystemPersister.load_cassette(cassette_path, serializer)

    def save_cassette(
        self, cassette_path: str, cassette_dict: dict[str, Any], serializer: Any
    ) -> None:
        from vcr.persisters.filesystem import FilesystemPersister

        try:
            secrets.refuse_secrets(
                str(cassette_path), cassette_dict["requests"], cassette_dict["responses"]
            )
        except SecretInCassette as exc:
            self.refused = exc
            return
        FilesystemPersister.save_cassette(cassette_path, cassette_dict, serializer)


def make_vcr(
    record_mode: str = "none",
    *,
    ignore_body_keys: tuple[str, ...] = (),
    filter_headers: tuple[str, ...] = (),
) -> Any:
    """A ``vcr.VCR`` with toolwire's matching, filtering, decoding and secret refusal.

    Matching is on method, ``tw_uri`` (path, query) and ``tw_body`` (JSON body);
    ``filter_headers`` adds request headers to drop beyond :data:`FILTER_HEADERS`. A write
    refused for a surviving secret leaves no file and is in ``.persister.refused``.
    """
    try:
        import vcr  # type: ignore[import-untyped]
    except ImportError:
        raise UnsupportedInput("cassettes need vcrpy: pip install 'toolwire[testing]'") from None

    v = vcr.VCR(
        record_mode=record_mode,
        match_on=["method", "tw_uri", "tw_body"],
        filter_headers=[*FILTER_HEADERS, *filter_headers],
        decode_compressed_response=True,
        before_record_request=secrets.filter_request,
        before_record_response=list(RESPONSE_HOOKS),
    )
    v.register_serializer("tw_yaml", ParsedBodySerializer)
    for name, matcher in request_matchers(ignore_body_keys).items():
        v.register_matcher(name, matcher)
    v.register_persister(ScanningPersister())
    return v


def replay(
    path: str,
    *,
    match: Literal["request", "path"] = "request",
    ignore_body_keys: tuple[str, ...] = (),
    **kwargs: Any,
) -> Any:
    """A vcrpy cassette context for ``path`` that never touches the network.

    Each recorded interaction is played once. ``match="request"`` (the default) plays it to the
    request that matches it: method, path, query and JSON body as data, so turn 2 of a
    conversation never gets turn 1's answer; identical requests take identical recordings in
    file order. ``match="path"`` matches on method and path only and so hands out the recorded
    answers in file order, for a test that replays responses through an SDK with requests of
    its own making. ``kwargs`` go to vcrpy's ``use_cassette``.
    """
    v = make_vcr("none", ignore_body_keys=ignore_body_keys)
    v.register_matcher("tw_path", _path_matcher)
    if match == "path":
        kwargs.setdefault("match_on", ["method", "tw_path"])
    return v.use_cassette(path, serializer="tw_yaml", **kwargs)


__all__ = [
    "FILTER_HEADERS",
    "RESPONSE_HOOKS",
    "ParsedBodySerializer",
    "ScanningPersister",
    "make_vcr",
    "normalized_path",
    "replay",
    "request_matchers",
]
