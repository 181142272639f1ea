"""The fast path from a vendor's SSE bytes to AG-UI deltas.

Most events of a stream carry one text or argument fragment, always written the same way.
A vendor's reader (``sse_chunks``) hands its decoder an :class:`SSEChunks`; a decoder that
knows the vendor's delta event as a regular expression (in the vendor's ``wire`` module,
built from the parts below) asks for it with :meth:`SSEChunks.fused` and gets each such
event as the expression's match, from the SSE parser's own pass over the text: no JSON parse
of the rest of the event and no dict made, the fragment taken from its group. Everything
else comes as the chunk dict it always was, and so does a match the decoder cannot take
where it stands (:meth:`SSEChunks.chunk`): the two paths give the same events.

The parts admit JSON only (a string's characters and escapes as JSON spells them; the
expressions built from them name each key once), so a match is one JSON object and its
fragment exactly the string ``json.loads`` would give. They admit no surrogate, escaped or
not, so a matched text is one the JSON reader takes as it is, without a warning; the
decoders check the depth cap against their expression's fixed depth.
"""

from __future__ import annotations

import json.decoder
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import chain
from re import Match, Pattern
from typing import Any

from toolwire.protocol.limits import limits

#: a JSON string's characters between its quotes: no quote, backslash or control
#: character but in the escapes JSON has, and no surrogate (as itself or escaped: the
#: general path names a lone one; a pair written as two escapes goes that way too)
STRING = (
    r'[^"\\\x00-\x1f\ud800-\udfff]*'
    r'(?:\\(?:["\\/bfnrt]|u(?![dD][89a-fA-F])[0-9a-fA-F]{4})[^"\\\x00-\x1f\ud800-\udfff]*)*'
)
#: a JSON number, string, ``null``, ``true`` or ``false``
SCALAR = rf'(?:"{STRING}"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|null|true|false)'
#: an index as vendors write them, short enough that ``int`` of it is cheap (a longer one
#: goes the general way)
INDEX = r"(?:0|[1-9][0-9]{0,17})"

#: json's own string reader (its C one): ``(text, index after the opening quote)`` ->
#: ``(the string, index after the closing quote)``; ``scan_string(m.string, m.start(g))[0]``
#: is the string group ``g`` of a match captured (between its quotes), its escapes read
scan_string: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def sse_event(data: str, name: str | None = None, *, any_name: bool = False) -> Pattern[str]:
    """The expression of one whole SSE event (as the parser sees it: LF line ends): an
    ``event: name`` line when ``name`` is given (any ``event:`` line or none with
    ``any_name``: for a vendor whose reader does not read the name), one ``data:`` line
    whose value ``data`` matches (its group ``data``), and the blank line."""
    if name is not None:
        head = f"event: ?{re.escape(name)}\n"
    else:
        head = "(?:event:[^\n]*\n)?" if any_name else ""
    return re.compile(rf"{head}data: ?(?P<data>{data})\n\n")


class SSEChunks(Iterator[dict[str, Any]]):
    """The chunk dicts of a vendor's SSE body, as its ``sse_chunks`` hands them out (an
    iterator, read lazily as before); its decoder may read the same stream :meth:`fused`.

    ``lists`` makes, from this reader, the generator of each piece's items: it feeds the
    piece to the SSE parser with :meth:`pattern` (``SSEParser.feed_items``), so while a
    decoder reads fused a list may hold matches. ``chunk`` makes the dict of a matched
    event.
    """

    __slots__ = ("_chunk", "_depth", "_items", "_plain", "fast")

    def __init__(
        self,
        lists: Callable[[SSEChunks], Iterator[list[Any]]],
        chunk: Callable[[Match[str]], dict[str, Any]],
    ) -> None:
        #: the delta event's expression while a decoder reads :meth:`fused`
        self.fast: Pattern[str] | None = None
        self._depth = 0
        self._chunk = chunk
        self._items = chain.from_iterable(lists(self))
        self._plain = True  # no match made yet: the items are all dicts

    def __iter__(self) -> Iterator[dict[str, Any]]:
        # the items themselves (no Python step per chunk) while they can hold no match
        return self._items if self._plain else self

    def __next__(self) -> dict[str, Any]:
        item = next(self._items)
        return item if type(item) is not Match else self._chunk(item)

    def fused(self, pattern: Pattern[str], depth: int) -> Iterator[dict[str, Any] | Match[str]]:
        """The rest of the stream with the events ``pattern`` matches as matches, from the
        next piece on; :meth:`unfuse` when done (a match left over then comes as a dict).
        ``depth``: the containers a matched event nests; a piece read while the depth cap
        is not above it is read the general way (which names the cap)."""
        self.fast = pattern
        self._depth = depth
        self._plain = False
        return self._items

    def pattern(self) -> Pattern[str] | None:
        """The expression to read the next piece with (``SSEParser.feed_items``)."""
        fast = self.fast
        return fast if fast is not None and limits().max_json_depth > self._depth else None

    def unfuse(self) -> None:
        self.fast = None

    def chunk(self, match: Match[str]) -> dict[str, Any]:
        """The chunk dict of a matched event, as the general path reads it."""
        return self._chunk(match)


@contextmanager
def fused_reading(
    chunks: Iterable[Any], pattern: Pattern[str], depth: int
) -> Iterator[tuple[Iterable[Any], SSEChunks | None]]:
    """A decoder's stream loop over ``chunks``, and the reader that makes a dict of a match
    it cannot take: toolwire's own reader read :meth:`fused <SSEChunks.fused>` (matches
    among the dicts; unfused when the loop ends, however it ends), any other iterable as it
    is (no reader: no match comes)."""
    if type(chunks) is not SSEChunks:
        yield chunks, None
        return
    try:
        yield chunks.fused(pattern, depth), chunks
    finally:
        chunks.unfuse()


__all__ = ["INDEX", "SCALAR", "STRING", "SSEChunks", "fused_reading", "scan_string", "sse_event"]
