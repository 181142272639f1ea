"""Whose encrypted value is this? Signatures and encrypted reasoning only work where they came from.

An Anthropic thinking signature, a Gemini thought signature and an OpenAI
``encrypted_content`` are opaque to every other vendor, which rejects them. A
decoder marks each encrypted value with the provider that issued it (metadata
``toolwire.encryptedBy`` on ``REASONING_ENCRYPTED_VALUE``; history assembly
merges it into the tool call or message it belongs to), and an encoder keeps a
value only for that provider, recording a loss otherwise. A value with no mark
(a history built elsewhere) is passed on as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ag_ui.core import AssistantMessage, Message, ReasoningEncryptedValueEvent

from toolwire.losses import Loss

ENCRYPTED_BY_KEY = "toolwire.encryptedBy"


def encrypted_value_event(
    subtype: Literal["tool-call", "message"], entity_id: str, value: str, provider: str
) -> ReasoningEncryptedValueEvent:
    """``REASONING_ENCRYPTED_VALUE`` marked with the provider that issued it."""
    return ReasoningEncryptedValueEvent(
        subtype=subtype,
        entity_id=entity_id,
        encrypted_value=value,
        metadata={ENCRYPTED_BY_KEY: provider},
    )


def mark(metadata: dict[str, Any] | None, provider: str) -> dict[str, Any]:
    """``metadata`` with the issuing provider of its item's encrypted value added."""
    out = dict(metadata or {})
    out[ENCRYPTED_BY_KEY] = provider
    return out


def issued_by(metadata: dict[str, Any] | None) -> str | None:
    value = (metadata or {}).get(ENCRYPTED_BY_KEY)
    return value if isinstance(value, str) else None


def usable_encrypted(
    value: str | None,
    metadata: dict[str, Any] | None,
    provider: str,
    *,
    target: str,
    entity: str,
    losses: list[Loss] | None = None,
) -> str | None:
    """``value`` when ``provider`` can use it, else ``None`` (with a loss when it was set)."""
    if value is None:
        return None
    origin = issued_by(metadata)
    if origin is None or origin == provider:
        return value
    if losses is not None:
        losses.append(
            Loss(
                kind="encrypted-value-dropped",
                target=target,
                reason=f"the encrypted value of {entity} was issued by {origin}, "
                f"which only {origin} can read",
            )
        )
    return None


def _with_calls(m: AssistantMessage, calls: list[Any]) -> AssistantMessage:
    return m.model_copy(update={"tool_calls": calls})


def mark_history(messages: Sequence[Message], provider: str) -> list[Message]:
    """Mark every encrypted value in a history decoded from ``provider``'s request."""
    out: list[Message] = []
    for m in messages:
        if isinstance(m, AssistantMessage) and m.tool_calls:
            calls = [
                c.model_copy(update={"metadata": mark(c.metadata, provider)})
                if c.encrypted_value is not None and issued_by(c.metadata) is None
                else c
                for c in m.tool_calls
            ]
            m = _with_calls(m, calls)
        value = getattr(m, "encrypted_value", None)
        meta = getattr(m, "metadata", None)
        if value is not None and issued_by(meta) is None:
            m = m.model_copy(update={"metadata": mark(meta, provider)})
        out.append(m)
    return out


def strip_foreign(
    messages: Sequence[Message], provider: str, *, target: str, losses: list[Loss]
) -> list[Message]:
    """A history with every encrypted value another provider issued removed (one loss each)."""
    out: list[Message] = []
    for m in messages:
        # vars(): only an assistant message has calls (isinstance on a pydantic class costs
        # more), and a message class without a field has no attribute, where getattr with a
        # default on a pydantic model goes through its slow __getattr__
        fields = vars(m)
        if fields.get("tool_calls") and isinstance(m, AssistantMessage):
            calls = m.tool_calls or []
            copied: list[Any] | None = None  # the calls, copied once one of them changes
            for n, c in enumerate(calls):
                if c.encrypted_value is None:
                    continue  # most calls: nothing to check, nothing to copy
                kept = usable_encrypted(
                    c.encrypted_value,
                    c.metadata,
                    provider,
                    target=target,
                    entity=f"tool call {c.id!r}",
                    losses=losses,
                )
                if kept != c.encrypted_value:
                    if copied is None:
                        copied = list(calls)
                    copied[n] = c.model_copy(update={"encrypted_value": kept})
            if copied is not None:  # the message is copied only when one of its calls changed
                m = _with_calls(m, copied)
                fields = vars(m)
        value = fields.get("encrypted_value")
        if value is None:
            out.append(m)
            continue
        kept_value = usable_encrypted(
            value,
            fields.get("metadata"),
            provider,
            target=target,
            entity=f"message {m.id!r}",
            losses=losses,
        )
        if kept_value != value:
            m = m.model_copy(update={"encrypted_value": kept_value})
        out.append(m)
    return out


__all__ = [
    "ENCRYPTED_BY_KEY",
    "encrypted_value_event",
    "issued_by",
    "mark",
    "mark_history",
    "strip_foreign",
    "usable_encrypted",
]
