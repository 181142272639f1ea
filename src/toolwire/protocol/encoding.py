"""What every adapter's stream Encoder shares: feed/close, and losses warned at the surface.

An adapter subclasses :class:`BaseEncoder` and implements ``_feed`` (one AG-UI event, a
model or a dict) and ``_close``; what the vendor cannot hold it appends to ``losses``.
``feed``/``close`` warn once about each new loss, so the translation never warns from
deep inside and a caller reads the same records as values.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import BaseEvent, EventType

from toolwire.losses import snapshot_dropped
from toolwire.protocol.translator import Translator


class BaseEncoder(Translator):
    """Sans-I/O base: subclasses turn AG-UI events into vendor chunk dicts."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        """One AG-UI event (model or dict) -> vendor chunk dicts."""
        chunks = self._feed(event)
        self.warn_new()
        return chunks

    def close(self) -> list[dict[str, Any]]:
        """End of the event stream: whatever the vendor needs to end its stream."""
        chunks = self._close()
        self.warn_new()
        return chunks

    def _feed(self, event: Any) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _close(self) -> list[dict[str, Any]]:
        return []


class OutputStreamEncoder(BaseEncoder):
    """An encoder into a stream that carries the model's output only (a chat or completion
    stream): each event goes to the class's ``_on_<type>`` handler (``_handlers``, from
    ``protocol.dispatch.handlers_by_type``), and the two events such a stream has no place
    for are said as losses. ``stream_name`` names the stream in them; ``_lose`` records one.
    """

    #: what the vendor calls its stream, in a loss ("a chat stream")
    stream_name = "the vendor's stream"
    _handlers: dict[EventType, Any]

    def _lose(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        raise NotImplementedError

    def _on(self, ev: BaseEvent) -> list[dict[str, Any]]:
        handler = self._handlers.get(ev.type)
        if handler is not None:
            return handler(self, ev)  # type: ignore[no-any-return]
        return []

    def _on_messages_snapshot(self, ev: BaseEvent) -> list[dict[str, Any]]:
        self.losses.append(snapshot_dropped(self.vendor, self.stream_name))
        return []

    def _on_tool_call_result(self, ev: BaseEvent) -> list[dict[str, Any]]:
        self._lose(
            "tool-result-dropped",
            f"{self.stream_name} carries the model's output only; results go in the next "
            "request (encode_request)",
            tool_call_id=getattr(ev, "tool_call_id", None),
        )
        return []


__all__ = ["BaseEncoder", "OutputStreamEncoder"]
