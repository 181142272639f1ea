"""Exceptions toolwire raises: each names where the problem is and what it is.

Every exception derives from :class:`ToolwireError`, so a caller can catch one
type; nothing below lets a bare ``KeyError``/``TypeError``/``AttributeError``
escape from bad input.
"""

from __future__ import annotations

from typing import Any

from toolwire.redaction import redact as _redact_value


def redact(text: str) -> str:
    """:func:`toolwire.redaction.redact` of one message (the module below this one)."""
    return _redact_value(text)


class ToolwireError(Exception):
    """Base of every toolwire exception; its message never holds a credential (redacted)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class ProtocolViolation(ToolwireError):
    """An AG-UI stream or value breaks a normative rule of the protocol.

    ``code`` is stable (tests, the CLI and callers match on it); ``index`` is the
    position of the offending event in the stream, when there is one.
    """

    def __init__(self, code: str, reason: str, *, index: int | None = None) -> None:
        self.code = code
        self.reason = reason = redact(reason)
        self.index = index
        where = f" at event {index}" if index is not None else ""
        super().__init__(f"{code}{where}: {reason}")


class VendorDataError(ToolwireError):
    """A vendor chunk, response or request is malformed (a field missing or of the wrong type)."""

    def __init__(self, vendor: str, where: str, reason: str) -> None:
        self.vendor = vendor
        self.where = where = redact(where)
        self.reason = reason = redact(reason)
        super().__init__(f"{vendor}: {where}: {reason}")


class TruncatedStream(ToolwireError):
    """A vendor stream ended without its terminal event: never reported as success."""

    def __init__(self, vendor: str, reason: str) -> None:
        self.vendor = vendor
        self.reason = reason = redact(reason)
        super().__init__(f"{vendor}: stream truncated: {reason}")


class VendorStreamError(ToolwireError):
    """The vendor reported an error inside the stream (e.g. Anthropic ``overloaded_error``)."""

    def __init__(
        self, vendor: str, error_type: str, message: str, *, retryable: bool = False
    ) -> None:
        self.vendor = vendor
        self.error_type = error_type
        self.message = message = redact(message)
        self.retryable = retryable
        super().__init__(f"{vendor}: {error_type}: {message}")


class UnsupportedInput(ToolwireError):
    """Input of a kind this adapter or command does not handle."""


class AdapterPluginError(UnsupportedInput):
    """An adapter installed under the ``toolwire.adapters`` entry point cannot be used:
    it does not import, or its package does not keep the adapter contract. Names the
    plugin (``name``) and what is wrong (``reason``); the built-in adapters are unaffected."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name = redact(name)
        self.reason = reason = redact(reason)
        super().__init__(f"adapter plugin {name!r}: {reason}")


class UnansweredToolCall(ToolwireError):
    """A history holds a tool call with no result where the target requires every call answered."""

    def __init__(self, target: str, tool_call_ids: list[str]) -> None:
        self.target = target
        self.tool_call_ids = list(tool_call_ids)
        ids = ", ".join(tool_call_ids)
        super().__init__(
            f"{target}: tool call(s) {ids} have no result before the conversation continues; "
            "answer each (a failure is answered with ToolMessage.error)"
        )


class LimitExceeded(ToolwireError):
    """Input grew past a cap of :mod:`toolwire.protocol.limits` (``limit`` names it)."""

    def __init__(self, limit: str, cap: int, where: str) -> None:
        self.limit = limit
        self.cap = cap
        self.where = where = redact(where)
        super().__init__(
            f"{where}: larger than the limit {limit}={cap}; raise it with "
            "toolwire.protocol.limits.configure() if this input is legitimate"
        )


class SecretInCassette(ToolwireError):
    """A cassette about to be written still holds a key-shaped value: the write is refused.

    ``findings`` name each place (interaction, header / URL / body path) and the kind of value,
    never the value itself.
    """

    def __init__(self, path: str, findings: list[str]) -> None:
        self.path = path
        self.findings = list(findings)
        shown = "\n  ".join(self.findings[:20])
        more = f"\n  ... and {len(self.findings) - 20} more" if len(self.findings) > 20 else ""
        super().__init__(
            f"refusing to write cassette {path}: a value shaped like a credential survived "
            f"filtering:\n  {shown}{more}\nFilter it (toolwire_cassette(name, filter_headers=..., "
            "filter_response_headers=..., before_record_request=...), or vcr_config) and record "
            "again."
        )


class CassetteMiss(ToolwireError):
    """A replayed request matches no unplayed recorded interaction (record mode forbids recording).

    ``reason`` names every field where the live request differs from the closest recorded one.
    """

    def __init__(self, path: str, request: str, reason: str, record_mode: str) -> None:
        self.path = path = redact(path)
        self.request = request = redact(request)  # a URL's password, a signed URL's query
        self.reason = reason = redact(reason)
        self.record_mode = record_mode
        if not request:
            super().__init__(
                f"cassette {path} does not exist and record mode {record_mode!r} does not "
                "record: record it once with --record-mode=once (a key is needed then)"
            )
            return
        super().__init__(
            f"cassette {path}: {request} is not in the cassette ({reason}); record mode "
            f"{record_mode!r} does not record. Re-record with --record-mode=new_episodes "
            "(add it) or --record-mode=all (record the cassette again)."
        )


class DuplicateToolCallId(UnsupportedInput):
    """A history gives two tool calls one id: no result could say which call it answers."""

    def __init__(self, target: str, tool_call_id: str, first: str, second: str) -> None:
        self.target = target
        self.tool_call_id = tool_call_id
        super().__init__(
            f"{target}: two tool calls share the id {tool_call_id!r} (in messages {first!r} "
            f"and {second!r}); AG-UI call ids are unique in a thread, so give each call its "
            "own id (toolwire's decoders keep a vendor's repeated id apart with a minted one)"
        )


def error_name(exc: ToolwireError) -> str:
    """The public class name of ``exc`` (a stable ``RUN_ERROR.code``): the first class of its
    type defined here, so an internal subclass (e.g. the JSON loader's, which is also a
    ``ValueError``) reads as the error it is."""
    for cls in type(exc).__mro__:
        if cls.__module__ == __name__:
            return cls.__name__
    return type(exc).__name__


__all__ = [
    "AdapterPluginError",
    "CassetteMiss",
    "DuplicateToolCallId",
    "LimitExceeded",
    "ProtocolViolation",
    "SecretInCassette",
    "ToolwireError",
    "TruncatedStream",
    "UnansweredToolCall",
    "UnsupportedInput",
    "VendorDataError",
    "VendorStreamError",
    "error_name",
]
