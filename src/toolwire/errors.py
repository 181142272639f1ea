"""Exceptions toolwire raises: each names where the problem is and what it is.

Every exception derives from :class:`ToolwireError`, so a caller can catch one
type; nothing below lets a bare ``KeyError``/``TypeError``/``AttributeError``
escape from bad input.
"""

from __future__ import annotations


class ToolwireError(Exception):
    """Base of every toolwire exception."""


class ProtocolViolation(ToolwireError):
    """An AG-UI stream or value breaks a normative rule of the protocol.

    ``code`` is stable (tests, the CLI and callers match on it); ``index`` is the
    position of the offending event in the stream, when there is one.
    """

    def __init__(self, code: str, reason: str, *, index: int | None = None) -> None:
        self.code = code
        self.reason = reason
        self.index = index
        where = f" at event {index}" if index is not None else ""
        super().__init__(f"{code}{where}: {reason}")


class VendorDataError(ToolwireError):
    """A vendor chunk, response or request is malformed (a field missing or of the wrong type)."""

    def __init__(self, vendor: str, where: str, reason: str) -> None:
        self.vendor = vendor
        self.where = where
        self.reason = reason
        super().__init__(f"{vendor}: {where}: {reason}")


class TruncatedStream(ToolwireError):
    """A vendor stream ended without its terminal event: never reported as success."""

    def __init__(self, vendor: str, reason: str) -> None:
        self.vendor = vendor
        self.reason = reason
        super().__init__(f"{vendor}: stream truncated: {reason}")


class VendorStreamError(ToolwireError):
    """The vendor reported an error inside the stream (e.g. Anthropic ``overloaded_error``)."""

    def __init__(
        self, vendor: str, error_type: str, message: str, *, retryable: bool = False
    ) -> None:
        self.vendor = vendor
        self.error_type = error_type
        self.message = message
        self.retryable = retryable
        super().__init__(f"{vendor}: {error_type}: {message}")


class UnsupportedInput(ToolwireError):
    """Input of a kind this adapter or command does not handle."""


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


__all__ = [
    "DuplicateToolCallId",
    "ProtocolViolation",
    "ToolwireError",
    "TruncatedStream",
    "UnansweredToolCall",
    "UnsupportedInput",
    "VendorDataError",
    "VendorStreamError",
]
