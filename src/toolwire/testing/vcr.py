"""vcrpy glue: replay any cassette (incl. pydantic-ai's ``parsed_body``) with no network.

``replay(path)`` returns a vcrpy context manager in ``record_mode="none"``
matching on method, scheme, host and a normalized path (google-genai 3.x calls
``/v1/`` where older recordings hold ``/v1beta/``).
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from toolwire.matching import normalized_path

#: Headers that carry credentials; filtered whenever we record.
FILTER_HEADERS = ("authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie")


class ParsedBodySerializer:
    """A vcrpy serializer that also reads pydantic-ai's ``parsed_body`` mappings."""

    @staticmethod
    def deserialize(cassette_string: str) -> dict[str, Any]:
        data: dict[str, Any] = yaml.safe_load(cassette_string)
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
        return str(yaml.safe_dump(cassette_dict, sort_keys=False, allow_unicode=True))


def _path_matcher(r1: Any, r2: Any) -> None:
    assert normalized_path(r1.path) == normalized_path(r2.path)


def replay(path: str, **kwargs: Any) -> Any:
    """A vcrpy cassette context for ``path`` that never touches the network."""
    import vcr  # type: ignore[import-untyped]

    v = vcr.VCR(
        record_mode="none",
        match_on=["method", "scheme", "host", "tw_path"],
        filter_headers=list(FILTER_HEADERS),
        decode_compressed_response=True,
    )
    v.register_serializer("tw_yaml", ParsedBodySerializer)
    v.register_matcher("tw_path", _path_matcher)
    kwargs.setdefault("allow_playback_repeats", True)
    return v.use_cassette(path, serializer="tw_yaml", **kwargs)


__all__ = ["FILTER_HEADERS", "ParsedBodySerializer", "normalized_path", "replay"]
