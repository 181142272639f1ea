"""One module (or package) per peer, all with the same surface (DESIGN.md).

``adapters.get(name)`` imports the adapter lazily, so importing toolwire never
imports a vendor SDK.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Literal, cast, overload

from toolwire.adapters.contract import Adapter, Decoder, Encoder, ResultPeer
from toolwire.errors import UnsupportedInput

NAMES: tuple[str, ...] = (
    "anthropic",
    "openai_chat",
    "openai_responses",
    "gemini",
    "dialogflow",
    "asgard",
    "ollama",
    "mistral",
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


@overload
def get(name: Literal["mcp"]) -> ResultPeer: ...  # type: ignore[overload-overlap]


@overload
def get(name: str) -> Adapter: ...


def get(name: str) -> Adapter | ResultPeer:
    """The adapter module for ``name`` (e.g. ``"anthropic"``, or ``"mcp"``).

    Typed as the contract it keeps: :class:`Adapter` for a stream adapter,
    :class:`ResultPeer` for ``"mcp"`` (a result-only peer).
    """
    key = name.replace("-", "_").lower()
    if key not in NAMES and key not in RESULT_PEERS:
        known = ", ".join((*NAMES, *RESULT_PEERS))
        raise UnsupportedInput(f"unknown adapter {name!r}; known: {known}")
    try:
        module = importlib.import_module(f"toolwire.adapters.{key}")
    except ModuleNotFoundError as exc:
        if exc.name == f"toolwire.adapters.{key}":
            raise UnsupportedInput(f"the {key} adapter is not available yet") from None
        raise
    if key in RESULT_PEERS:
        return cast(ResultPeer, module)
    return cast(Adapter, module)


def available() -> list[str]:
    """Stream adapter names (``NAMES``) whose module exists in this installation."""
    out = []
    for n in NAMES:
        if importlib.util.find_spec(f"toolwire.adapters.{n}") is not None:
            out.append(n)
    return out


if TYPE_CHECKING:  # mypy holds every adapter module to the contract it is typed as
    from toolwire.adapters import (
        anthropic,
        asgard,
        dialogflow,
        gemini,
        mcp,
        mistral,
        ollama,
        openai_chat,
        openai_responses,
    )

    _anthropic: Adapter = anthropic
    _openai_chat: Adapter = openai_chat
    _openai_responses: Adapter = openai_responses
    _gemini: Adapter = gemini
    _dialogflow: Adapter = dialogflow
    _asgard: Adapter = asgard
    _ollama: Adapter = ollama
    _mistral: Adapter = mistral
    _mcp: ResultPeer = mcp

__all__ = [
    "NAMES",
    "RESULT_PEERS",
    "RESULT_SURFACE",
    "SURFACE",
    "Adapter",
    "Decoder",
    "Encoder",
    "ResultPeer",
    "available",
    "get",
]
