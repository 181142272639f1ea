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
    """The adapter module for ``name`` (e.g. ``"anthropic"``)."""
    key = name.replace("-", "_").lower()
    if key not in NAMES:
        raise UnsupportedInput(f"unknown adapter {name!r}; known: {', '.join(NAMES)}")
    try:
        return importlib.import_module(f"toolwire.adapters.{key}")
    except ModuleNotFoundError as exc:
        if exc.name == f"toolwire.adapters.{key}":
            raise UnsupportedInput(f"the {key} adapter is not available yet") from None
        raise


def available() -> list[str]:
    """Adapter names whose module exists in this installation."""
    out = []
    for n in NAMES:
        if importlib.util.find_spec(f"toolwire.adapters.{n}") is not None:
            out.append(n)
    return out


__all__ = ["NAMES", "SURFACE", "available", "get"]
