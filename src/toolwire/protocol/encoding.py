"""What every adapter's stream Encoder shares: feed/close, and losses warned at the surface.

An adapter subclasses :class:`BaseEncoder` and implements ``_feed`` (one AG-UI event, a
model or a dict) and ``_close``; what the vendor cannot hold it appends to ``losses``.
``feed``/``close`` warn once about each new loss, so the translation never warns from
deep inside and a caller reads the same records as values.
"""

from __future__ import annotations

from typing import Any

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


__all__ = ["BaseEncoder"]
