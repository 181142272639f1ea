"""``usageMetadata`` <-> AG-UI ``TokenUsage`` (provider ``google``).

Gemini counts thoughts apart from ``candidatesTokenCount``; the protocol counts
reasoning inside output, so ``output = candidates + thoughts``. Tool-use prompt
tokens are prompt tokens. A count Gemini did not send stays absent (never 0).
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import TokenUsage

from toolwire.adapters.gemini.wire import PROVIDER, VENDOR, get
from toolwire.protocol.usage import summed_count, token_count

_COUNTS = (
    "promptTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
    "toolUsePromptTokenCount",
    "cachedContentTokenCount",
    "totalTokenCount",
)


def has_counts(meta: dict[str, Any]) -> bool:
    """True when ``usageMetadata`` carries any token count (Vertex sends bare ``trafficType``)."""
    return any(isinstance(get(meta, k), (int, float)) for k in _COUNTS)


def _count(meta: dict[str, Any], key: str) -> int | None:
    return token_count(get(meta, key), VENDOR, f"usageMetadata.{key}")


def _add(a: int | None, b: int | None, what: str) -> int | None:
    if a is None:
        return b
    return a if b is None else summed_count(a + b, VENDOR, "usageMetadata", what)


def to_token_usage(meta: dict[str, Any], model: str | None) -> TokenUsage:
    prompt = _add(
        _count(meta, "promptTokenCount"), _count(meta, "toolUsePromptTokenCount"), "input"
    )
    thoughts = _count(meta, "thoughtsTokenCount")
    output = _add(_count(meta, "candidatesTokenCount"), thoughts, "output")
    kw: dict[str, Any] = {"provider": PROVIDER}
    if model:
        kw["model"] = model
    for name, value in (
        ("input_tokens", prompt),
        ("output_tokens", output),
        ("total_tokens", _count(meta, "totalTokenCount")),
        ("reasoning_tokens", thoughts),
        ("cached_input_tokens", _count(meta, "cachedContentTokenCount")),
    ):
        if value is not None:
            kw[name] = value
    return TokenUsage(**kw)


def from_token_usage(usage: TokenUsage) -> dict[str, Any]:
    """The ``usageMetadata`` a ``TokenUsage`` stands for (inverse of :func:`to_token_usage`)."""
    out: dict[str, Any] = {}
    if usage.input_tokens is not None:
        out["promptTokenCount"] = usage.input_tokens
    if usage.output_tokens is not None:
        out["candidatesTokenCount"] = usage.output_tokens - (usage.reasoning_tokens or 0)
    if usage.total_tokens is not None:
        out["totalTokenCount"] = usage.total_tokens
    if usage.reasoning_tokens is not None:
        out["thoughtsTokenCount"] = usage.reasoning_tokens
    if usage.cached_input_tokens is not None:
        out["cachedContentTokenCount"] = usage.cached_input_tokens
    return out


__all__ = ["from_token_usage", "has_counts", "to_token_usage"]
