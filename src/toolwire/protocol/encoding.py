"""What every adapter's stream Encoder shares: feed/close, and losses warned at the surface.

An adapter subclasses :class:`BaseEncoder` and implements ``_feed`` (one AG-UI event, a
model or a dict) and ``_close``; what the vendor cannot hold it appends to ``losses``.
``feed``/``close`` warn once about each new loss, so the translation never warns from
deep inside and a caller reads the same records as values.
"""

from __future__ import annotations

from typing import Any

from toolwire.losses import Loss, announce
from toolwire.protocol.options import checked_init


class BaseEncoder:
    """Sans-I/O base: subclasses turn AG-UI events into vendor chunk dicts."""

    vendor: str = "vendor"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        checked_init(cls)  # Decoder(bogus=1) is an UnsupportedInput naming the option

    def __init__(self) -> None:
        #: what this encoder could not carry to the vendor (each warned about once)
        self.losses: list[Loss] = []
        self._announced = 0

    def feed(self, event: Any) -> list[dict[str, Any]]:
        """One AG-UI event (model or dict) -> vendor chunk dicts."""
        chunks = self._feed(event)
        if len(self.losses) > self._announced:
            self._announce_new()
        return chunks

    def close(self) -> list[dict[str, Any]]:
        """End of the event stream: whatever the vendor needs to end its stream."""
        chunks = self._close()
        if len(self.losses) > self._announced:
            self._announce_new()
        return chunks

    def _announce_new(self) -> None:
        announce(self.losses[self._announced :])
        self._announced = len(self.losses)

    def _feed(self, event: Any) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _close(self) -> list[dict[str, Any]]:
        return []


__all__ = ["BaseEncoder"]
