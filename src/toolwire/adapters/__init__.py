"""One module (or package) per peer, all with the same surface (DESIGN.md).

``adapters.get(name)`` imports the adapter lazily, so importing toolwire never
imports a vendor SDK.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from toolwire.errors import UnsupportedInput

NAMES: tuple[str, ...] = (
    "anthropic",
    "openai_chat",
    "openai_responses",
    "gemini",
    "dialogflow",
    "asgard",
)

#: Peers with no stream of their own: they translate tool results, tool definitions and
#: calls only, so they are kept out of ``NAMES`` (which the CLI and the tests treat as
#: stream adapters) and have their own surface.
RESULT_PEERS: tuple[str, ...] = ("mcp",)

#: The names every result-only peer defines.
RESULT_SURFACE: tuple[str, ...] = (
    "decode_result",
    "encode_result",
    "decode_tool",
    "encode_tool",
    "decode_call",
    "encode_call",
)

#: The names every adapter module defines (ADAPTERS.md "Surface").
SURFACE: tuple[str, ...] = (
    "Decoder",
    "Encoder",
    "decode_stream",
    "adecode_stream",
    "encode_stream",
    "to_sse",
    "encode_request",
    "decode_request",
    "decode_response",
)


def get(name: str) -> ModuleType:
    """The adapter module for ``name`` (e.g. ``"anthropic"``, or ``"mcp"``)."""
    key = name.replace("-", "_").lower()
    if key not in NAMES and key not in RESULT_PEERS:
        known = ", ".join((*NAMES, *RESULT_PEERS))
        raise UnsupportedInput(f"unknown adapter {name!r}; known: {known}")
    try:
        return importlib.import_module(f"toolwire.adapters.{key}")
    except ModuleNotFoundError as exc:
        if exc.name == f"toolwire.adapters.{key}":
            raise UnsupportedInput(f"the {key} adapter is not available yet") from None
        raise


def available() -> list[str]:
    """Stream adapter names (``NAMES``) whose module exists in this installation."""
    out = []
    for n in NAMES:
        if importlib.util.find_spec(f"toolwire.adapters.{n}") is not None:
            out.append(n)
    return out


__all__ = ["NAMES", "RESULT_PEERS", "RESULT_SURFACE", "SURFACE", "available", "get"]
