"""What a Decoder and an Encoder share: options checked, losses kept and warned at the surface.

A translation only appends to ``losses``; the public ``feed``/``close`` of
:class:`~toolwire.protocol.decoding.BaseDecoder` and
:class:`~toolwire.protocol.encoding.BaseEncoder` call :meth:`Translator.warn_new`, so each
loss is warned about once, pointing at the caller, and read as a value from ``losses``.
"""

from __future__ import annotations

from typing import Any

from toolwire.losses import Loss, announce
from toolwire.protocol.options import checked_init


class Translator:
    """The base of both directions' sans-I/O translators."""

    vendor: str = "vendor"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        checked_init(cls)  # Decoder(bogus=1) is an UnsupportedInput naming the option

    def __init__(self) -> None:
        #: what this translation could not carry to its target (each warned about once)
        self.losses: list[Loss] = []
        self._announced = 0

    def warn_new(self) -> None:
        """Warn once about each loss found since the last call."""
        if len(self.losses) > self._announced:
            announce(self.losses[self._announced :])
            self._announced = len(self.losses)


__all__ = ["Translator"]
