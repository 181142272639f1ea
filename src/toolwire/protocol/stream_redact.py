"""Known secrets out of an AG-UI event stream, across events, without touching JSON syntax.

Masking each encoded event on its own misses a key the model streamed over two deltas (each
delta holds half of it), and replacing a short key as a substring of the encoded JSON
corrupts every event (``"typ[REDACTED]"``). This redactor works on the events' string
values instead, never on the JSON text around them, and reads each delta lane (a text
message, a reasoning message, a tool call's argument text) as one text: the end of a delta
that could be the start of a secret is held back until the next delta of the lane tells,
or until the lane ends (its ``*_END`` event, another event after a ``*_CHUNK``, or the run's
terminal event), when what is held is sent as one more delta.

A server writes every event it sends: :meth:`StreamRedactor.frames` gives each event with its
JSON text, the text the mask's check already wrote, so an event that holds no secret is
written once (and a delta that holds none and whose end cannot begin one is sent as it came,
not copied).

A value shorter than :data:`toolwire.protocol.redact.MIN_SECRET_CHARS` is not treated as a
secret: local OpenAI-compatible servers are given keys like ``e`` or ``x``, which protect
nothing and would match everywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from toolwire.protocol._event_json import FRAME_GAP, call_json, pair_json, pairs_json, run_json
from toolwire.protocol.redact import MASK, redact, secret_values
from toolwire.protocol.sse import event_json

#: delta event type -> (the field naming its lane, the type that ends the lane or None)
_LANES: dict[EventType, tuple[str, EventType | None]] = {
    EventType.TEXT_MESSAGE_CONTENT: ("message_id", EventType.TEXT_MESSAGE_END),
    EventType.TOOL_CALL_ARGS: ("tool_call_id", EventType.TOOL_CALL_END),
    EventType.TEXT_MESSAGE_CHUNK: ("message_id", None),
    EventType.TOOL_CALL_CHUNK: ("tool_call_id", None),
}
for _name, _end in (
    ("REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END"),
    ("THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END"),
):
    if hasattr(EventType, _name):
        _LANES[EventType[_name]] = ("message_id", EventType[_end])
if hasattr(EventType, "REASONING_MESSAGE_CHUNK"):
    _LANES[EventType.REASONING_MESSAGE_CHUNK] = ("message_id", None)

_TERMINAL = (EventType.RUN_FINISHED, EventType.RUN_ERROR)

#: an event to send, and its JSON text when already written (None: not yet)
_Out = tuple[BaseEvent, str | None]


class _Kind:
    """What the redactor does with an event of one type (worked out once per type)."""

    __slots__ = ("blank_none", "ends", "field", "lane", "name", "terminal", "type")

    def __init__(self, kind: Any) -> None:
        self.type = kind
        #: the type's text: lanes are keyed by it (an ``EventType`` hashes in Python)
        self.name = str(getattr(kind, "value", kind))
        lane = _LANES.get(kind)
        self.lane = lane is not None
        #: the field naming the lane of a delta, or of the lane this type ends
        self.field = lane[0] if lane is not None else ""
        #: the type that ends this delta's lane (None: the next other event does)
        self.ends = str(lane[1].value) if lane is not None and lane[1] is not None else None
        self.terminal = kind in _TERMINAL
        #: a lane whose id may be missing (a ``TOOL_CALL_CHUNK`` after the first)
        self.blank_none = kind == EventType.TOOL_CALL_CHUNK


#: per event class, the kind of the type its instances usually carry (checked per event)
_KINDS: dict[type, _Kind] = {}


def _kind_of(event: BaseEvent) -> _Kind:
    known = _KINDS.get(type(event))
    if known is not None and event.type is known.type:
        return known
    kind = _Kind(event.type)  # (an ``EventType``, or its text in an unchecked event)
    _KINDS.setdefault(type(event), kind)
    return kind


class _Lane:
    __slots__ = ("ends", "field", "held", "template")

    def __init__(self, template: BaseEvent, kind: _Kind) -> None:
        self.template = template  # the lane's last delta event: a held tail is sent as it
        self.held = ""
        self.ends = kind.ends
        self.field = kind.field


class StreamRedactor:
    """Feed the events of one stream in order; send what :meth:`feed` returns.

    ``feed(event)`` gives the events to send now (masked, a delta possibly shortened or held
    back whole); ``close()`` gives what is still held when the stream ends without a
    terminal event. Text is masked with :data:`MASK`.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = secret_values(secrets)
        # what a secret looks like inside JSON text (escaped), to tell cheaply that an
        # encoded event holds none of them
        encoded = {json.dumps(s)[1:-1] for s in self.secrets} | set(self.secrets)
        self._holds_any = _any_of(sorted(encoded, key=len, reverse=True))
        #: how far from a text's end a secret may begin, and the characters one begins with:
        #: a delta whose last ``_reach`` characters hold none of them ends in no secret's
        #: beginning (the usual delta: one search in C, not a look per secret)
        self._reach = max((len(x) for x in self.secrets), default=1) - 1
        #: a secret's beginning at a text's end is its first character as the last one, or
        #: its first two characters within ``_reach`` of the end: rarer than one character
        #: (``sk`` beside ``s``), so the exact look (:meth:`_possible_start`) seldom runs
        self._lasts = frozenset(x[0] for x in self.secrets)
        self._pairs = _any_of(sorted({x[:2] for x in self.secrets}))
        #: finds, in deltas each followed by :data:`_ENDED`, one whose end begins a secret
        #: (:meth:`_possible_start`'s question of many at once): a secret's first
        #: characters, all but its whole, just before the mark (a mark inside a delta can
        #: only add a match)
        self._begins = _begins_any(self.secrets)
        #: the open delta lanes, by (type, the id of the message or call): those an end
        #: event closes, and the ``*_CHUNK`` lanes, which the next other event closes
        self._lanes: dict[tuple[str, str], _Lane] = {}
        self._loose: dict[tuple[str, str], _Lane] = {}
        #: per end event type, the (delta type, id field) of the lanes it closes: an end
        #: event finds its lanes by key, however many others are open (linear in the stream)
        self._enders: dict[str, dict[tuple[str, str], None]] = {}

    def feed(self, event: BaseEvent) -> list[BaseEvent]:
        if not self.secrets:
            return [event]
        return [e for e, _ in self._feed(event)]

    def frames(self, event: BaseEvent) -> list[tuple[BaseEvent, str]]:
        """:meth:`feed`, each event given with its JSON text (``event_json``)."""
        return self.frames_of([event])

    def frames_of(self, events: list[BaseEvent]) -> list[tuple[BaseEvent, str]]:
        """:meth:`frames` of each of ``events`` in turn, in one list.

        While no lane holds text back (the usual case: a lane exists only while it holds
        some), an event whose JSON text holds no secret is sent as it came, with that text,
        unless it is a delta whose end may begin one; every other event goes the general
        way (:meth:`_feed`). Whether any text holds a secret is asked once of them all
        (joined, a text can only add a match, never hide one), then of each only where
        that finds something."""
        texts = [event_json(e) for e in events]
        if not self.secrets:
            return list(zip(events, texts, strict=True))
        lanes, loose = self._lanes, self._loose  # (the same tables for the whole stream)
        holds = self._holds_any
        clean = holds("\n".join(texts)) is None
        out: list[tuple[BaseEvent, str]] = []
        kinds, may_begin = _KINDS, self._may_begin
        for event, text in zip(events, texts, strict=True):
            kind = kinds.get(type(event))
            if (
                kind is not None
                and not lanes
                and not loose
                and event.type is kind.type
                and (clean or holds(text) is None)
            ):  # no lane holds text: an event that holds no secret goes as it came
                if not kind.lane:
                    out.append((event, text))
                    continue
                delta = getattr(event, "delta", None)  # and a delta's end begins none
                if type(delta) is str and not may_begin(delta):
                    out.append((event, text))
                    continue
            for e, given in self._feed(event):
                out.append((e, event_json(e) if given is None else given))
        return out

    def texts_of(self, events: list[BaseEvent]) -> list[str]:
        """The JSON texts of :meth:`frames_of` ``events``, in order: what a server writes,
        each as ``data: <text>``. A whole call (its start, one arguments event, its end:
        what a vendor that sends calls whole gives) that goes as it came is one text, its
        three frames' JSON joined by ``FRAME_GAP`` (``_event_json.call_json``: one template
        writes them), and so is a call's start with its first arguments (``pair_json``:
        a vendor whose calls end at the turn's end); anything else is what
        :meth:`frames_of` gives.

        While no lane holds text, the list is written first (:func:`_written`) and asked
        once whether any text holds a secret (joined: a text can only add a match, never
        hide one) and whether any delta's end may begin one (:meth:`_begins`, of the
        deltas joined): where neither, every event goes as it came (what :meth:`_feed`
        does with each), so those texts are what is sent; anything else goes the event
        by event way."""
        if not self._lanes and not self._loose:
            texts, deltas = _written(events)
            if not self.secrets or (
                self._holds_any(FRAME_GAP.join(texts)) is None
                and (not deltas or self._begins(_ENDED.join(deltas) + _ENDED) is None)
            ):
                return texts
        return self._texts_by_event(events)

    def _texts_by_event(self, events: list[BaseEvent]) -> list[str]:
        """:meth:`texts_of` event by event: its whole calls by the template where they go
        as they came, every other event as :meth:`frames_of` gives it."""
        start_type, args_type, end_type = ToolCallStartEvent, ToolCallArgsEvent, ToolCallEndEvent
        starts = [at for at, event in enumerate(events) if type(event) is start_type]
        if not starts:  # (a stream of deltas: no call whole in it)
            return [text for _, text in self.frames_of(events)]
        out: list[str] = []
        n = len(events)
        done = 0
        for at in starts:
            if (
                at + 2 >= n
                or type(events[at + 1]) is not args_type
                or type(events[at + 2]) is not end_type
            ):
                continue
            if done < at:  # the events before the call, as a list
                out += [text for _, text in self.frames_of(events[done:at])]
            text = self._whole_call(events[at], events[at + 1], events[at + 2])
            if text is None:  # (not as it came, or not in the template's forms)
                out += [text for _, text in self.frames_of(events[at : at + 3])]
            else:
                out.append(text)
            done = at + 3
        if done < n:
            out += [text for _, text in self.frames_of(events[done:])]
        return out

    def _whole_call(self, start: Any, args: Any, end: Any) -> str | None:
        """A whole call's text when its three events go as they came: no lane holds text,
        none of them holds a secret and the arguments' end begins none (what
        :meth:`_feed` then does with each); ``None`` otherwise."""
        if self._lanes or self._loose:
            return None
        text = call_json(start, args, end)
        if text is None or not self.secrets:
            return text
        delta = args.delta
        if self._holds_any(text) is not None or type(delta) is not str or self._may_begin(delta):
            return None
        return text

    def _feed(self, event: BaseEvent) -> list[_Out]:
        out: list[_Out] = []
        kind = _kind_of(event)
        if kind.lane:
            named = getattr(event, kind.field, "")
            key = (kind.name, str(named or "") if kind.blank_none else str(named))
            if self._loose:
                self._flush_chunk_lanes(out, keep=key)
            out.extend(self._delta(key, kind, event))
            return out
        if kind.terminal:
            self._flush_all(out)
        else:
            if self._loose:
                self._flush_chunk_lanes(out, keep=None)
            if self._lanes:
                self._flush_ended(out, kind, event)
        out.append(self._masked(event))
        return out

    def close(self) -> list[BaseEvent]:
        out: list[_Out] = []
        self._flush_all(out)
        return [e for e, _ in out]

    def text(self, text: str) -> str:
        """Plain text (a log line) with the known secrets masked."""
        return redact(text, self.secrets, shapes=False) if self.secrets else text

    # -- deltas ----------------------------------------------------------------------------

    def _delta(self, key: tuple[str, str], kind: _Kind, event: BaseEvent) -> list[_Out]:
        delta = getattr(event, "delta", None)
        if not isinstance(delta, str):
            return [self._masked(event)]
        lanes = self._loose if kind.ends is None else self._lanes
        lane = lanes.get(key)
        held = "" if lane is None else lane.held
        if not held:  # the usual delta: no secret in it, and its end begins none
            whole = self._masked(event)
            if whole[1] is not None and not self._may_begin(delta):
                return [whole]
        text = redact(held + delta, self.secrets, shapes=False)
        keep = self._possible_start(text)
        send = text[: len(text) - keep]
        if keep:  # a lane is kept while it holds text (what ends it releases that)
            if lane is None:
                lane = lanes[key] = _Lane(event, kind)
                if kind.ends is not None:
                    self._enders.setdefault(kind.ends, {})[kind.name, kind.field] = None
            lane.template = event
            lane.held = text[len(text) - keep :]
        elif lane is not None:
            del lanes[key]
        if not send:
            return []  # all of it may begin a secret: sent when the lane tells
        rest, _ = self._masked(event, skip="delta")
        return [(rest.model_copy(update={"delta": send}), None)]

    def _may_begin(self, text: str) -> bool:
        """Whether an end of ``text`` begins a secret: the quick look first (see
        ``_pairs``), the exact one only where it finds something."""
        if text[-1:] not in self._lasts and (
            self._pairs(text, max(len(text) - self._reach, 0)) is None
        ):
            return False
        return self._possible_start(text) > 0

    def _possible_start(self, text: str) -> int:
        """The length of the longest end of ``text`` that begins a secret (not all of it):
        only where a secret's first character is can one begin, and the leftmost such
        place that does is the longest."""
        best = 0
        n = len(text)
        for secret in self.secrets:
            first = secret[0]
            at = text.find(first, max(n - len(secret) + 1, 0))
            while at != -1 and n - at > best:
                if secret.startswith(text[at:]):
                    best = n - at
                    break
                at = text.find(first, at + 1)
        return best

    def _release(self, key: tuple[str, str], out: list[_Out]) -> None:
        lane = self._lanes.pop(key, None) or self._loose.pop(key, None)
        if lane is not None and lane.held:
            rest, _ = self._masked(lane.template, skip="delta")
            out.append((rest.model_copy(update={"delta": lane.held}), None))

    def _flush_chunk_lanes(self, out: list[_Out], keep: tuple[str, str] | None) -> None:
        for key in [k for k in self._loose if k != keep]:
            self._release(key, out)

    def _flush_ended(self, out: list[_Out], kind: _Kind, event: BaseEvent) -> None:
        """Release the lanes ``event`` ends: looked up by their keys, not by a walk of every
        open lane (a stream whose ends come late keeps many open)."""
        lanes = self._lanes
        found = [
            key
            for name, field in self._enders.get(kind.name, ())
            if (key := (name, str(getattr(event, field, "")))) in lanes
        ]
        if len(found) > 1:  # in the order the lanes opened, as they were walked before
            order = {key: n for n, key in enumerate(lanes)}
            found.sort(key=order.__getitem__)
        for key in found:
            self._release(key, out)

    def _flush_all(self, out: list[_Out]) -> None:
        for key in [*self._lanes, *self._loose]:
            self._release(key, out)

    # -- whole events ----------------------------------------------------------------------

    def _masked(self, event: BaseEvent, skip: str | None = None) -> _Out:
        """``event`` with every string value masked (``skip``: a field left as it is), and
        its JSON text when it is ``event`` as it came (None: a masked copy)."""
        text = event_json(event)
        if self._holds_any(text) is None:
            return event, text
        update: dict[str, Any] = {}
        for name in type(event).model_fields:
            if name == skip:
                continue
            value = getattr(event, name)
            masked = _mask_value(value, self.secrets)
            if masked is not value:
                update[name] = masked
        return (event.model_copy(update=update), None) if update else (event, text)


#: what follows each delta in the text :attr:`StreamRedactor._begins` searches
_ENDED = "\x00"


def _begins_any(secrets: list[str]) -> Any:
    """``search`` for a secret's beginning (one character at least, not all of it) just
    before an :data:`_ENDED`: each secret's prefixes as nested optional groups
    (``a(?:b(?:c)?)?``), so a search is linear in the text."""
    shapes = []
    for secret in secrets:
        if len(secret) < 2:
            continue
        chars = [re.escape(c) for c in secret[:-1]]
        nested = ""
        for c in reversed(chars[1:]):
            nested = f"(?:{c}{nested})?"
        shapes.append(chars[0] + nested)
    if not shapes:
        return re.compile("(?!)").search
    return re.compile("(?:" + "|".join(shapes) + ")" + re.escape(_ENDED)).search


def _written(events: list[BaseEvent]) -> tuple[list[str], list[str]]:
    """``events``' JSON texts as they came (a whole call's three, and a call's start with
    its first arguments, each one text: ``call_json``, ``pair_json``; calls' ends in a row
    in one loop: ``run_json``), and the string deltas of the lane events among them (what
    :meth:`StreamRedactor._may_begin` asks of each), in order."""
    texts: list[str] = []
    deltas: list[str] = []
    start_type, args_type, end_type = ToolCallStartEvent, ToolCallArgsEvent, ToolCallEndEvent
    kinds = _KINDS
    n = len(events)
    at = 0
    while at < n:
        event = events[at]
        cls = type(event)
        if cls is start_type and at + 1 < n and type(args := events[at + 1]) is args_type:
            if at + 2 < n and type(end := events[at + 2]) is end_type:
                text = call_json(event, args, end)
                if text is not None:  # (its types as their classes': a start, a delta, an end)
                    texts.append(text)
                    deltas.append(args.delta)
                    at += 3
                    continue
            after = pairs_json(events, at, texts, deltas)  # (calls ending later: pairs)
            if after > at:
                at = after
                continue
            text = pair_json(event, args)
            if text is not None:
                texts.append(text)
                deltas.append(args.delta)
                at += 2
                continue
        if cls is end_type:  # (a turn's ends in a row, in their form: no lane among them)
            after = run_json(events, at, texts)
            if after > at:
                at = after
                continue
        kind = kinds.get(cls)
        if kind is None or event.type is not kind.type:
            kind = _kind_of(event)
        if kind.lane:
            delta = getattr(event, "delta", None)
            if isinstance(delta, str):
                deltas.append(delta)
        texts.append(event_json(event))
        at += 1
    return texts, deltas


def _any_of(texts: list[str]) -> Any:
    """``search`` for any of ``texts`` (a pattern that finds nothing when there is none)."""
    return re.compile("|".join(map(re.escape, texts)) or "(?!)").search


def _mask_value(value: Any, secrets: list[str]) -> Any:
    """``value`` with the secrets masked in its strings (the same object when none held)."""
    if isinstance(value, str):
        masked = redact(value, secrets, shapes=False)
        return value if masked == value else masked
    if isinstance(value, (list, tuple)):
        items = [_mask_value(v, secrets) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        pairs = {k: _mask_value(v, secrets) for k, v in value.items()}
        return value if all(pairs[k] is value[k] for k in value) else pairs
    fields = getattr(type(value), "model_fields", None)
    if fields is not None:  # a nested model (a run input, a message, a tool)
        update = {}
        for name in fields:
            current = getattr(value, name)
            masked = _mask_value(current, secrets)
            if masked is not current:
                update[name] = masked
        return value.model_copy(update=update) if update else value
    return value


__all__ = ["MASK", "StreamRedactor"]
