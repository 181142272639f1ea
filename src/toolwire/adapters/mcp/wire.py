"""MCP vocabulary: the revision followed, metadata keys, and reading SDK objects or dicts.

MCP values arrive as the ``mcp`` SDK's pydantic models (``mcp.types``) or as dicts of
the specification's JSON shape. Both are read as JSON dicts here, so they give the
same output; the SDK is never imported.
"""

from __future__ import annotations

import warnings
from typing import Any

from toolwire.errors import UnsupportedInput, VendorDataError
from toolwire.losses import UnrecognizedMaterialWarning
from toolwire.protocol.fields import Fields

VENDOR = "mcp"
#: Every MCP field is read through this (one wording for every wrong shape).
FIELDS = Fields(VENDOR)

#: The MCP specification revision this adapter follows (``schema/2026-07-28``).
SPEC_REVISION = "2026-07-28"

#: Metadata key prefix: every MCP field with no AG-UI home rides as ``mcp.<wire name>``.
PREFIX = "mcp."
#: The block type, where the part's own kind does not say it (``resource``,
#: ``resource_link``, ``structuredContent`` for the JSON text toolwire added).
TYPE_KEY = "mcp.type"
URI_KEY = "mcp.uri"
MIME_KEY = "mcp.mimeType"
ANNOTATIONS_KEY = "mcp.annotations"
META_KEY = "mcp._meta"
#: ``_meta`` of an embedded resource's contents (the block has a ``_meta`` of its own).
RESOURCE_META_KEY = "mcp.resource._meta"
STRUCTURED_KEY = "mcp.structuredContent"
STRUCTURED_TYPE = "structuredContent"


def as_json(value: Any, where: str) -> dict[str, Any]:
    """An ``mcp.types`` model or a dict as a JSON dict (absent fields stay absent)."""
    if isinstance(value, dict):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        out = dump(mode="json", by_alias=True, exclude_none=True)
        if isinstance(out, dict):
            return out
    raise VendorDataError(
        VENDOR, where, f"expected a JSON object or an mcp.types model, got {type(value).__name__}"
    )


def optional(value: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """``value[key]`` when present (``None`` when absent), checked for type.

    On top of ``FIELDS.at``, as MCP's schema reads: a property that is there must hold
    its type (``null`` is not an absent property), and a boolean is not a number.
    """
    if key not in value:
        return None
    got = FIELDS.at(value, key, kind, where)
    if isinstance(got, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise FIELDS.wrong(got, kind, f"{where}.{key}")
    return got


def ids(**given: Any) -> None:
    """The caller's ids are strings (``None`` where one is optional), else ``UnsupportedInput``."""
    for name, value in given.items():
        if not isinstance(value, str) and not (value is None and name != "tool_call_id"):
            raise UnsupportedInput(f"mcp: {name} must be a string, got {type(value).__name__}")


def strip_unknown(
    value: dict[str, Any], known: frozenset[str], where: str, stripped: list[str]
) -> None:
    """Note in ``stripped`` each property the revision does not describe (not carried)."""
    stripped.extend(
        f"toolwire: stripped unknown property {where}.{key} (not in MCP {SPEC_REVISION})"
        for key in value
        if key not in known
    )


def warn_stripped(stripped: list[str]) -> None:
    """Warn once about each stripped thing, from a public function's own top level: the
    warning points past it and its ``checked_options`` wrapper, at the caller."""
    for text in stripped:
        warnings.warn(text, UnrecognizedMaterialWarning, stacklevel=4)


def prefixed(value: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The ``keys`` present in ``value``, as ``mcp.<key>`` metadata."""
    return {PREFIX + k: value[k] for k in keys if k in value}


def unprefixed(meta: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The reverse of :func:`prefixed`: ``mcp.<key>`` metadata back to wire keys."""
    return {k: meta[PREFIX + k] for k in keys if PREFIX + k in meta}


__all__ = [
    "ANNOTATIONS_KEY",
    "FIELDS",
    "META_KEY",
    "MIME_KEY",
    "PREFIX",
    "RESOURCE_META_KEY",
    "SPEC_REVISION",
    "STRUCTURED_KEY",
    "STRUCTURED_TYPE",
    "TYPE_KEY",
    "URI_KEY",
    "VENDOR",
    "as_json",
    "ids",
    "optional",
    "prefixed",
    "strip_unknown",
    "unprefixed",
    "warn_stripped",
]
