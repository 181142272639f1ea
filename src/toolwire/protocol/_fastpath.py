"""The fast path from a vendor's SSE (or NDJSON) bytes to AG-UI deltas: one mechanism,
driven by data.

Most events of a stream carry one text or argument fragment, always written the same way.
An adapter declares that event once, as data: a :class:`DeltaForm` in its ``wire`` module
(the SSE event it comes in, the JSON shape, which fields hold the index or id and the
fragment). Its decoder states the mapping once, as a *rule*: a method that takes those
fields and returns the AG-UI event they become in the decoder's state (``None``: taken, no
event; :data:`PASS`: not a case the rule takes, the general path reads it). The decoder's
general handler calls the same rule once it has checked the chunk, so the two paths share it.

:func:`read_stream` is the one loop. Fed toolwire's own reader (an :class:`SSEChunks`), it
reads the stream fused: the SSE parser hands on each event the form's expression matches as
the match itself (``SSEParser.feed_items``; an NDJSON body's reader hands on each line
the same way, ``NDJSONReader.feed_items``, the form declared ``lines``), and the loop gives
the rule the fields, no JSON parse of the rest of the event and no dict made. A match the
rule passes becomes the chunk dict it always was and goes to ``feed``: the two readings
give the same events.

A stream of frames (Bedrock's event stream) hands its delta payloads a piece at a time to
the form's payloads reader (:meth:`DeltaForm.payloads_reader`): a payload that begins as
the last match's did, up to a :class:`Text` field with no field after it, is read from
there with json's C string reader and the field's tail expression, and comes as a tuple of
the fields' values (the values that match would give), not as a match.

The expression is built from the declared shape: it admits JSON only (a string's characters
and escapes as JSON spells them, each key once, no key of the shape among the "other"
fields), so a match is one JSON object and a fragment exactly the string ``json.loads``
gives; no surrogate, escaped or not, so a matched text needs no repair and no warning. It
takes the keys in the declared order, and the spacing the vendor writes (none, or with
``spaced`` one space after a ``:`` or ``,``, as Gemini writes): a chunk written another way
(keys reordered, other whitespace) is valid JSON the expression does not match, and it goes
the general way (``tests/protocol/test_fastpath.py`` checks the outcome is the same). A
field may also be a whole JSON value (:class:`Whole`: an object the vendor fills), handed
over as its text, and its depth bounded by the declaration. The depth of a match is counted
from the shape, and a piece read under a depth cap not above it goes the general way too
(which names the cap).
"""

from __future__ import annotations

import enum
import json.decoder
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from re import Match, Pattern
from typing import Any, Final, Literal

from ag_ui.core import BaseEvent

from toolwire.protocol.limits import limits

#: a repeat that gives nothing back once it stopped (possessive, Python 3.11's ``*+``): no
#: text any expression here takes is taken by backtracking into such a repeat (what can
#: follow one cannot begin inside it), so it changes no match, only how soon one that fails
#: fails; Python 3.10 has no such repeat and backtracks as before
_KEEP = "+" if sys.version_info >= (3, 11) else ""
#: a group that, once matched, is not tried again another way (atomic, ``(?>...)``): a JSON
#: value's extent is fixed by its first character, and what follows one (a ``,``, ``}``,
#: ``]`` or the gap) cannot continue it, so this too changes no match
_ONCE = "?>" if sys.version_info >= (3, 11) else "?:"

#: a JSON string's characters between its quotes: no quote, backslash or control
#: character but in the escapes JSON has, and no surrogate (as itself or escaped: the
#: general path names a lone one; a pair written as two escapes goes that way too)
_STRING = (
    rf'[^"\\\x00-\x1f\ud800-\udfff]*{_KEEP}'
    r'(?:\\(?:["\\/bfnrt]|u(?![dD][89a-fA-F])[0-9a-fA-F]{4})'
    rf'[^"\\\x00-\x1f\ud800-\udfff]*{_KEEP})*{_KEEP}'
)
#: a JSON number, string, ``null``, ``true`` or ``false``; a number's integer part has at
#: most 639 digits (``json.loads`` refuses an integer longer than Python's digit limit, 640
#: at the least: a longer one goes the general way, which names it)
_SCALAR = (
    rf'({_ONCE}"{_STRING}"|-?(?:0|[1-9][0-9]{{0,638}})(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?'
    r"|null|true|false)"
)
#: an index as vendors write them, short enough that ``int`` of it is cheap (a longer one
#: goes the general way)
_INDEX = r"(?:0|[1-9][0-9]{0,17})"
#: a key or a word value spelled without escapes
_WORD = rf"[A-Za-z0-9_]+{_KEEP}"

#: json's own string reader (its C one): ``(text, index after the opening quote)`` ->
#: ``(the string, index after the closing quote)``
scan_string: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


class _Pass(enum.Enum):
    PASS = "pass"


#: what a rule returns for a case it does not take: the general path reads the chunk
PASS: Final = _Pass.PASS
#: what a rule returns: the event, ``None`` (taken, no event), or :data:`PASS`
Taken = BaseEvent | None | Literal[_Pass.PASS]
#: what the rule of a form declared ``many`` returns: the events, ``None``, or :data:`PASS`
TakenMany = list[BaseEvent] | None | Literal[_Pass.PASS]


# ------------------------------------------------------------------ the shape, as data


@dataclass(frozen=True)
class Index:
    """A field holding a non-negative integer (a block, choice or slot index)."""

    name: str


@dataclass(frozen=True)
class Text:
    """A field holding a string: the fragment the delta carries."""

    name: str


@dataclass(frozen=True)
class Word:
    """A field holding one of ``choices`` (any plain word when none are given); as a key,
    the name of a key (Anthropic's text field)."""

    name: str
    choices: tuple[str, ...] = ()

    def __init__(self, name: str, *choices: str) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "choices", choices)


@dataclass(frozen=True)
class Whole:
    """A field holding any JSON value nested at most ``depth`` containers deep (an object
    the vendor fills, such as a call's arguments or a usage record), handed to the rule
    as its JSON text, unparsed: the rule parses what it keeps (a match is valid JSON:
    strings as :class:`Text` admits them, no ``NaN``, each container closed)."""

    name: str
    depth: int


@dataclass(frozen=True)
class OneOf:
    """One of several shapes (their fields are ``None`` in a match of another)."""

    shapes: tuple[Any, ...]

    def __init__(self, *shapes: Any) -> None:
        object.__setattr__(self, "shapes", shapes)


@dataclass(frozen=True)
class Maybe:
    """An object's member that may be absent (its fields are then ``None``), or there with
    ``shape``: a member a vendor writes only when it holds something."""

    shape: Any


class _Mark(enum.Enum):
    OTHERS = "others"
    OTHERS_FROM_HERE = "others from here"
    ABSENT_OR_NULL = "absent or null"
    ABSENT = "absent"
    SCALAR = "scalar"
    SCALAR_OR_EMPTY_LIST = "scalar or []"


#: as a key of an object: any other members (never one of its declared keys) may stand
#: after each declared member, and before the first when this key is declared first; its
#: value says what theirs may be
OTHERS: Final = _Mark.OTHERS
#: as a key of an object: what :data:`OTHERS` admits, only where it is declared and after
#: each member declared after it (not before the members declared ahead of it: a vendor
#: that writes its first members alike every time, whose deltas are matched sooner when
#: no others are tried between them)
OTHERS_FROM_HERE: Final = _Mark.OTHERS_FROM_HERE
#: any JSON scalar (a string, number, ``true``, ``false``, ``null``); as a declared member's
#: value, one the rule is not handed (a key the vendor always writes, read by nothing)
SCALAR: Final = _Mark.SCALAR
#: a scalar, or an empty list
SCALAR_OR_EMPTY_LIST: Final = _Mark.SCALAR_OR_EMPTY_LIST
#: a member that may be absent, or ``null`` where it is declared, and nothing else
ABSENT_OR_NULL: Final = _Mark.ABSENT_OR_NULL
#: a member that must be absent
ABSENT: Final = _Mark.ABSENT


class _Compiled:
    """A shape turned into an expression: its fields in order, and its depth."""

    def __init__(self, gap: str = "") -> None:
        self.fields: list[tuple[str, type]] = []
        #: the fields that may be ``None`` in a match (in a branch of a :class:`OneOf` or in
        #: a :class:`Maybe`): only their values are asked whether they are
        self.optional: set[str] = set()
        self._optional = 0  # how many OneOf / Maybe the shape being read is inside
        #: what may stand after a ``:`` or a ``,`` (a vendor that writes ``"key": value``)
        self.gap = gap
        #: a Text field's tail: the expression of what follows its value's text in a match
        #: (its closing quote, then the rest of each container it is in, innermost first)
        self.tails: dict[str, str] = {}
        #: every OneOf's branch is told by its first key (objects whose first members are
        #: distinct declared keys): what a match's text before a field decides, it decides
        #: in any text that begins alike
        self.told_by_prefix = True

    def _field(self, name: str, kind: type) -> None:
        self.fields.append((name, kind))
        if self._optional:
            self.optional.add(name)

    def _inside(self, shape: Any) -> tuple[str, int]:
        """The expression of ``shape``, whose fields may be absent from a match."""
        self._optional += 1
        try:
            return self.value(shape)
        finally:
            self._optional -= 1

    def value(self, shape: Any) -> tuple[str, int]:
        """The expression of a JSON value, and how many containers it nests."""
        if isinstance(shape, dict):
            return self.object(shape)
        if isinstance(shape, list):
            assert len(shape) == 1, "a list of exactly one element"
            mark = len(self.fields)
            inner, depth = self.value(shape[0])
            self._follow(mark, r"\]")
            return rf"\[{inner}\]", depth + 1
        if isinstance(shape, Whole):
            self._field(shape.name, Whole)
            return f"(?P<{shape.name}>{_whole(shape.depth, self.gap)})", shape.depth
        if isinstance(shape, OneOf):
            firsts = [next(iter(s), None) if isinstance(s, dict) else None for s in shape.shapes]
            if not all(isinstance(k, str) for k in firsts) or len(set(firsts)) < len(firsts):
                self.told_by_prefix = False
            parts = [self._inside(s) for s in shape.shapes]
            return "(?:" + "|".join(p for p, _ in parts) + ")", max(d for _, d in parts)
        if shape is SCALAR:  # a declared member's value, not a field
            return _SCALAR, 0
        if isinstance(shape, Index):
            self._field(shape.name, Index)
            return f"(?P<{shape.name}>{_INDEX})", 0
        if isinstance(shape, Text):
            self._field(shape.name, Text)
            self.tails[shape.name] = '"'
            return f'"(?P<{shape.name}>{_STRING})"', 0
        if isinstance(shape, Word):
            self._field(shape.name, Word)
            return f'"(?P<{shape.name}>{_one_of(shape.choices)})"', 0
        # a constant
        assert not isinstance(shape, (dict, list)), "a constant is a scalar"
        return re.escape(json.dumps(shape)), 0

    def object(self, shape: dict[Any, Any]) -> tuple[str, int]:
        """An object: its members in the declared order, an :data:`ABSENT_OR_NULL` one
        where declared or not at all, an :data:`ABSENT` one never; other members after each
        member, and before the first when :data:`OTHERS` is declared first (with
        :data:`OTHERS_FROM_HERE`, after each member from where it is declared on)."""
        gap = self.gap
        keys = [k for k in shape if isinstance(k, str)]
        not_ours = "(?!" + "|".join(re.escape(k) + '"' for k in keys) + ")" if keys else ""
        assert OTHERS not in shape or OTHERS_FROM_HERE not in shape, "others declared once"
        other = ""
        depth = 0
        others = shape.get(OTHERS, shape.get(OTHERS_FROM_HERE))
        if others is not None:
            empty_lists = others is SCALAR_OR_EMPTY_LIST
            value = rf"(?:{_SCALAR}|\[\])" if empty_lists else _SCALAR
            other = f'"{not_ours}{_WORD}":{gap}{value}'
            depth = 1 if empty_lists else 0
        parts: list[str] = []
        if other and next(iter(shape)) in (OTHERS, OTHERS_FROM_HERE):
            parts.append(f"(?:{other},{gap})*{_KEEP}")
        here = OTHERS in shape  # others may stand after the next member
        first = True
        owned: list[tuple[int, int, int]] = []  # (after a member's part, its fields)
        for key, member in shape.items():
            if key is OTHERS_FROM_HERE:
                here = True
                continue
            if key is OTHERS or member is ABSENT:
                continue
            if isinstance(key, Word):  # a key named by the data
                self._field(key.name, Word)
                name = f'"{not_ours}(?P<{key.name}>{_WORD})"'
            else:
                name = re.escape(json.dumps(key))
            if member is ABSENT_OR_NULL:
                assert not first, "an object's first member is one it must have"
                parts.append(f"(?:,{gap}{name}:{gap}null)?")
                continue
            mark = len(self.fields)
            if type(member) is Maybe:
                assert not first, "an object's first member is one it must have"
                inner, d = self._inside(member.shape)
                depth = max(depth, d)
                if other and here:
                    parts.append(f"(?:,{gap}{other})*{_KEEP}")
                parts.append(f"(?:,{gap}{name}:{gap}{inner})?")
                owned.append((len(parts), mark, len(self.fields)))
                continue
            inner, d = self.value(member)
            depth = max(depth, d)
            if not first and other and here:
                parts.append(f"(?:,{gap}{other})*{_KEEP}")
            parts.append(f"{'' if first else ',' + gap}{name}:{gap}{inner}")
            owned.append((len(parts), mark, len(self.fields)))
            first = False
        if other:
            parts.append(f"(?:,{gap}{other})*{_KEEP}")
        for after, mark, end in owned:
            self._follow(mark, "".join(parts[after:]) + r"\}", end)
        return r"\{" + "".join(parts) + r"\}", depth + 1

    def _follow(self, mark: int, rest: str, before: int | None = None) -> None:
        """``rest`` follows the Text fields declared from ``mark`` on (to ``before``)."""
        for name, kind in self.fields[mark:before]:
            if kind is Text:
                self.tails[name] += rest


def _whole(depth: int, gap: str) -> str:
    """An expression of any JSON value at most ``depth`` containers deep, written with
    ``gap`` after each ``:`` and ``,``. Each container's members are one repeated group
    (a member, then a comma before another or the closing bracket), so the expression
    holds two copies of the level below, not four."""
    if depth == 0:
        return _SCALAR
    inner = _whole(depth - 1, gap)
    member = f'"{_STRING}":{gap}{inner}'
    obj = rf'\{{(?:{member}(?:,{gap}(?=")|(?=\}})))*{_KEEP}\}}'
    arr = rf"\[(?:{inner}(?:,{gap}(?=[^\]\s])|(?=\])))*{_KEEP}\]"
    return f"({_ONCE}{_SCALAR}|{obj}|{arr})"


def _common_start(words: tuple[str, ...]) -> str:
    n = 0
    while all(len(w) > n and w[n] == words[0][n] for w in words):
        n += 1
    return words[0][:n]


def _one_of(words: tuple[str, ...]) -> str:
    """An expression of any of ``words`` (any plain word when none are given), their common
    start and end written once (the engine would try each from its start)."""
    if not words:
        return _WORD
    head = _common_start(words)
    tail = _common_start(tuple(w[len(head) :][::-1] for w in words))[::-1]
    middles = [w[len(head) : len(w) - len(tail)] for w in words]
    return re.escape(head) + "(?:" + "|".join(map(re.escape, middles)) + ")" + re.escape(tail)


class DeltaForm:
    """What a vendor's common delta event looks like, declared once (in its ``wire``
    module): its SSE event name (``event``; ``any_event``: any ``event:`` line or none,
    for a vendor whose reader does not read the name; neither: no ``event:`` line) and
    its JSON ``shape`` (a dict literal in the vendor's key order, of constants and the
    fields above; or a :class:`OneOf` of such dicts, for a vendor whose common events
    differ in their members, one with an index and one without). ``spaced``: the vendor
    writes a space after a ``:`` or a ``,`` (as ``json.dumps`` does by default, and
    Gemini), or not: either is admitted, one space at most. A decoder's rule takes the
    fields in the order they are declared: :class:`Index` as an ``int``, :class:`Text` as
    the string its JSON spells, :class:`Word` as written, :class:`Whole` as its JSON text;
    a field of a :class:`OneOf` branch not taken is ``None``. It returns an event, or with
    ``many`` a list of events (a vendor whose common chunk is a whole call, or several
    parts).

    ``lines``: the body is NDJSON (``protocol.ndjson``), and the form is of one line: the
    same JSON object, then its ``\n``, no ``event:`` or ``data:`` framing. A line form must
    not match the vendor's last object (the reader's ``terminal``): a match is no dict, and
    nothing asks it whether it ends the stream.

    ``pattern`` is the expression of the whole SSE event (or line), ``payload`` of its data
    alone (for a frame's payload, matched whole); ``depth`` the containers
    a match nests; ``fields`` the names in order; ``read(match)`` the fields' values;
    ``loop`` the body of :func:`read_stream` for this form."""

    def __init__(
        self,
        shape: dict[Any, Any] | OneOf,
        event: str | None = None,
        *,
        any_event: bool = False,
        spaced: bool = False,
        many: bool = False,
        lines: bool = False,
    ) -> None:
        compiled = _Compiled(" ?" if spaced else "")
        data, self.depth = compiled.value(shape)
        if lines:
            assert event is None and not any_event, "a line has no event name"
            framed = rf"(?P<data>{data})\n"
        else:
            if event is not None:
                head = f"event: ?{re.escape(event)}\n"
            else:
                head = f"(?:event:[^\n]*{_KEEP}\n)?" if any_event else ""
            framed = rf"{head}data: ?(?P<data>{data})\n\n"
        self.lines = lines
        self.pattern: Pattern[str] = re.compile(framed)
        #: the expression of the data alone, with the same groups: for payloads that come
        #: in frames of another framing (a binary event stream's), matched whole
        self.payload: Pattern[str] = re.compile(rf"(?P<data>{data})")
        assert self.pattern.groups == len(compiled.fields) + 1, "only the fields are groups"
        self.fields = tuple(name for name, _ in compiled.fields)
        assert compiled.fields, "a form hands its rule at least one field"
        values, grab = _values(compiled.fields, compiled.optional)
        #: the fields' values made of their groups (Python source), for other loops over the
        #: form (``protocol.pushed``)
        self.values = values
        #: the statement that takes the fields' groups alone (``_0, _1 = m.group(2, 3)``):
        #: what a loop that reads no ``_data`` unpacks instead of ``m.groups()``
        self.grab = grab
        self.many = many
        self.read: Callable[[Match[str]], tuple[Any, ...]] = _written(
            _READ.format(grab=grab, values=values), "read"
        )
        emit = "yield from out" if many else "yield out"
        # the Text fields a payload may be read at from a match's text before and after
        # them (:meth:`payload_reader`): those with no field after them
        quick = [
            i
            for i, (name, kind) in enumerate(compiled.fields)
            if kind is Text and re.compile(compiled.tails[name]).groups == 0
        ]
        if not compiled.told_by_prefix or lines:
            quick = []
        self._quick = quick
        #: its payloads reader makes tuples (``(text, *values)``) of some payloads
        self.makes_tuples = bool(quick)
        self._tails = [re.compile(compiled.tails[self.fields[i]]).fullmatch for i in quick]
        names = ", ".join(f"_{i}" for i in range(len(self.fields)))
        taken = _TAKEN.format(names=names, emit=emit) if quick else ""
        self.loop: Callable[..., Iterator[BaseEvent]] = _written(
            _LOOP.format(grab=grab, values=values, emit=emit, taken=taken), "loop"
        )
        #: what makes a payloads reader (its state its own), written once per form
        self._reader: Callable[..., Callable[[list[Any]], list[int]]] | None = (
            _written(_quick_source(quick, names, grab, values), "make") if quick else None
        )

    def payloads_reader(self) -> Callable[[list[Any]], list[int]]:
        """A reader of one stream's payloads (a frame's, matched whole) a piece at a time,
        for the stream's frame reader (``FrameReader.feed_items``' ``read_all``): in a
        piece's list of items, each ``str`` (a delta frame's text) is made :attr:`payload`'s
        match of it, or, where the form has a :class:`Text` field with no field after it,
        a tuple ``(text, *values)`` of the fields' values when the text begins as the last
        match's did up to that field (the same fields before it, so the same values) and
        the rest is the field's JSON string (read by json's own C string reader, which
        checks its escapes) and what may follow it (the field's tail, as the expression has
        it): the values the match would give, with no expression run over the string (a
        delta's escapes were a third of its match). A text with a ``\\u`` escape or a
        surrogate is matched. Returned: the places of the texts the form does not match."""
        if self._reader is None:
            return _matching(self.payload.fullmatch)
        return self._reader(self.payload.fullmatch, scan_string, _SURROGATE.search, self._tails)

    def payload_reader(self) -> Callable[[str], Match[str] | tuple[Any, ...] | None]:
        """:meth:`payloads_reader` a text at a time: its match, its tuple, or ``None``."""
        read_all = self.payloads_reader()

        def read(text: str) -> Any:
            items: list[Any] = [text]
            return None if read_all(items) else items[0]

        return read

    def __repr__(self) -> str:
        return f"DeltaForm(fields={self.fields}, depth={self.depth})"


def _values(fields: list[tuple[str, type]], optional: set[str]) -> tuple[str, str]:
    """The fields' values made of a match's groups, and the fields' groups alone taken
    (``m.group(2, ...)``: not the event's whole data, a copy no rule reads), as Python
    source: an ``Index`` made an ``int`` (asked whether it is ``None`` only where it may
    be), a ``Text`` read as JSON reads it (only one with an escape needs reading: one whose
    escapes are all ``\\"``, the quotes of argument text, by ``str.replace``, any other by
    json's own C string reader)."""
    names = [f"_{i}" for i in range(len(fields))]
    values: list[str] = []
    for i, ((name, kind), var) in enumerate(zip(fields, names, strict=True)):
        group = i + 2  # (group 1: the event's data)
        absent = f"{var} is None or " if name in optional else ""
        if kind is Index:
            values.append(f"None if {var} is None else int({var})" if absent else f"int({var})")
        elif kind is Text:
            # (each \" made a quote: if no backslash is left, every escape was a \" and
            # that is the string; a backslash left is another escape, for json's reader)
            unquoted = f"_u{i} if '\\\\' not in (_u{i} := {var}.replace('\\\\\"', '\"'))"
            values.append(
                f"{var} if {absent}'\\\\' not in {var} "
                f"else ({unquoted} else scan(m.string, m.start({group}))[0])"
            )
        else:
            values.append(var)
    if len(names) == 1:
        grab = f"{names[0]} = m.group(2)"
    else:
        grab = f"{', '.join(names)} = m.group({', '.join(str(i + 2) for i in range(len(names)))})"
    return ", ".join(values), grab


#: a character no JSON text the expressions take holds (a lone surrogate)
_SURROGATE = re.compile("[\ud800-\udfff]")

#: a payloads reader (:meth:`DeltaForm.payloads_reader`): the text before the field ``slot``
#: learned from each match (its values kept), a text that begins alike read by json's
#: string reader from there and its tail matched (compared first with the last one's)
_QUICK = """
def make(fullmatch, scan, surrogate, tails):
    prefix, size, tail, rest, tailmatch, slot = "", 0, "", 0, None, -1
    {names}, = ({nones},)
    def read_all(items):
        nonlocal prefix, size, tail, rest, tailmatch, slot, {names}
        missed = []
        for at, text in enumerate(items):
            if type(text) is not str:
                continue
            if (
                slot >= 0
                and text.startswith(prefix)
                and "\\\\u" not in text
                and (text.isascii() or surrogate(text) is None)
            ):
                try:
                    s, end = scan(text, size)
                except ValueError:  # (no JSON string: the expression names nothing either)
                    pass
                else:
                    if (end + rest == len(text) + 1 and text.endswith(tail)) or tailmatch(
                        text, end - 1
                    ) is not None:
{returns}
            m = fullmatch(text)
            if m is None:
                missed.append(at)
                continue
            items[at] = m
            {grab}
            {names}, = ({values},)
            slot = -1
{learn}
            if slot >= 0:
                size, stop = m.span(slot + 2)
                prefix, tail, rest = text[:size], text[stop:], len(text) - stop
        return missed
    return read_all
"""


def _quick_source(quick: list[int], names: str, grab: str, values: str) -> str:
    """The source of a form's payloads reader (:data:`_QUICK`), for its ``quick`` fields."""
    count = len(names.split(", "))
    returns = []
    learn = []
    for k, i in enumerate(quick):
        made = ", ".join("s" if j == i else f"_{j}" for j in range(count))
        pad = " " * 24
        returns.append(
            f"{pad}if slot == {i}:\n{pad}    items[at] = (text, {made})\n{pad}    continue"
        )
        learn.append(
            f"            {'el' if k else ''}if _{i} is not None:\n"
            f"                slot, tailmatch = {i}, tails[{k}]"
        )
    nones = ", ".join(["None"] * count)
    return _QUICK.format(
        names=names, nones=nones, grab=grab, values=values,
        returns="\n".join(returns), learn="\n".join(learn),
    )  # fmt: skip


def _matching(fullmatch: Callable[[str], Match[str] | None]) -> Callable[[list[Any]], list[int]]:
    """The payloads reader of a form with no field to read from a prefix: each text its
    match."""

    def read_all(items: list[Any]) -> list[int]:
        missed = []
        for at, text in enumerate(items):
            if type(text) is str:
                m = fullmatch(text)
                if m is None:
                    missed.append(at)
                else:
                    items[at] = m
        return missed

    return read_all


#: the loop's step for a tuple a form's payload reader made: the rule takes its values (a
#: tuple comes from no other reader: a caller's own chunk that is one goes to ``feed``)
_TAKEN = """if type(m) is tuple and reader is not None:
                _t, {names} = m
                out = rule({names})
                if out is not PASS:
                    taken += 1
                    if out is not None:
                        {emit}
                    continue
                m = reader.chunk(m)
            el"""

#: a form's reader of one match: its fields' values
_READ = """
def read(m):
    {grab}
    return ({values},)
"""

#: a form's loop (:func:`read_stream` documents it), the fields' values made in place: a
#: reader called per match, then the rule, was a tenth of the fused path's time. As
#: ``dataclasses`` writes an ``__init__``, these few lines are written once per form.
_LOOP = """
def loop(decoder, chunks, reader, form, rule, quick, Match=Match, PASS=PASS, scan=scan):
    feed = decoder.feed
    taken = 0  # chunks the rule took, not yet added to decoder.chunk_index
    items = chunks if reader is None else reader.fused(form)
    try:
        for m in items:
            {taken}if type(m) is Match:
                {grab}
                out = rule({values})
                if out is not PASS:
                    taken += 1
                    if out is not None:
                        {emit}
                    continue
                m = reader.chunk(m)
            elif quick is not None:
                fields = quick(m)
                if fields is not None:
                    out = rule(*fields)
                    if out is not PASS:
                        taken += 1
                        if out is not None:
                            {emit}
                        continue
            if taken:
                decoder.chunk_index += taken
                taken = 0
            yield from feed(m)
        decoder.chunk_index += taken
        taken = 0
        yield from decoder.close()
    finally:
        decoder.chunk_index += taken
        if reader is not None:
            reader.unfuse()
"""


def _written(source: str, name: str) -> Any:
    """The function ``name`` of ``source`` (the templates above, filled from field kinds)."""
    scope: dict[str, Any] = {"scan": scan_string, "Match": Match, "PASS": PASS}
    exec(source, scope)
    return scope[name]


# ------------------------------------------------------------------ chunks made when reached


class Later:
    """A chunk its reader leaves to be made when a consumer reaches it (:meth:`made`): one
    whose making may warn (a lone surrogate replaced) or fail, so that its warning or
    error comes after the chunks before it are handed on (their events, their errors), as
    when the body is cut just before it, and never after an earlier chunk's error. A
    reader makes one only for a chunk its batch could not vouch for; the common chunks
    stay made."""

    __slots__ = ("_args", "_make")

    def __init__(self, make: Callable[..., Any], *args: Any) -> None:
        self._make = make
        self._args = args

    def made(self) -> Any:
        """The chunk (``None``: the reader makes none of it), its warning given now."""
        return self._make(*self._args)


def later_in(items: list[Any]) -> bool:
    """Whether ``items`` holds a :class:`Later` (one pass in C: no Python step an item)."""
    return Later in map(type, items)


def reached(items: list[Any]) -> Iterator[list[Any]]:
    """``items`` as runs of made chunks, each :class:`Later` made only once the runs before
    it are asked for (a generator: a consumer of the runs in turn, such as
    :class:`SSEChunks`' chain, reaches it after the chunks before it), a ``None`` left out."""
    start = 0
    for at in [i for i, item in enumerate(items) if type(item) is Later]:
        if at > start:
            yield items[start:at]
        chunk = items[at].made()
        yield [] if chunk is None else [chunk]
        start = at + 1
    if start < len(items):
        yield items[start:]


# ------------------------------------------------------------------ the fused reader


class SSEChunks(Iterator[dict[str, Any]]):
    """The chunk dicts of a vendor's SSE body, as its ``sse_chunks`` hands them out (an
    iterator, read lazily as before); :func:`read_stream` may read the same stream fused.
    An NDJSON body is read through one too (``protocol.ndjson.ndjson_objects``).

    ``lists`` makes, from this reader, the generator of each piece's items: it feeds the
    piece to the SSE parser (or the NDJSON reader) with :meth:`pattern`
    (``feed_items``), so while a decoder reads fused a list may hold matches. ``chunk``
    makes the dict of a matched event; ``numbered``: it also takes the event's number in
    the stream (``chunk(match, n)``, for its errors to name the event as the general
    reading names it), the items of the lists counted from 0.
    """

    __slots__ = (
        "_base",
        "_chunk",
        "_depth",
        "_form",
        "_items",
        "_numbered",
        "_piece",
        "_plain",
        "_seen",
        "fast",
    )

    def __init__(
        self,
        lists: Callable[[SSEChunks], Iterator[list[Any]]],
        chunk: Callable[..., dict[str, Any]],
        *,
        numbered: bool = False,
    ) -> None:
        #: the delta event's expression while a decoder reads :meth:`fused`
        self.fast: Pattern[str] | None = None
        self._form: DeltaForm | None = None
        self._depth = 0
        self._chunk = chunk
        self._numbered = numbered
        self._piece: list[Any] = []  # the list the items come from now (``numbered``)
        self._base = 0  # the number of its first item
        self._seen = 0  # where in it the last match made a chunk was
        pieces = lists(self)
        self._items: Iterator[Any] = chain.from_iterable(
            self._placed(pieces) if numbered else pieces
        )
        self._plain = True  # no match made yet: the items are all dicts

    def _placed(self, pieces: Iterator[list[Any]]) -> Iterator[list[Any]]:
        """The lists, each noted with the number of its first item as it is handed on (a
        step per piece, none per item)."""
        n = 0
        for items in pieces:
            self._piece, self._base, self._seen = items, n, 0
            yield items
            n += len(items)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        # the items themselves (no Python step per chunk) while they can hold no match
        return self._items if self._plain else self

    def __next__(self) -> dict[str, Any]:
        item = next(self._items)
        return item if type(item) is not Match and type(item) is not tuple else self.chunk(item)

    def fused(self, form: DeltaForm) -> Iterator[dict[str, Any] | Match[str]]:
        """The rest of the stream with the events ``form`` matches as matches, from the
        next piece on; :meth:`unfuse` when done (a match left over then comes as a dict)."""
        self.fast = form.pattern
        self._form = form
        self._depth = form.depth
        self._plain = False
        return self._items

    def pattern(self) -> Pattern[str] | None:
        """The expression to read the next piece with (``SSEParser.feed_items``): none
        while the depth cap is not above a match's depth."""
        fast = self.fast
        return fast if fast is not None and limits().max_json_depth > self._depth else None

    def unfuse(self) -> None:
        self.fast = None

    def guarded(self, guard: Callable[[Iterator[Any]], Iterator[Any]]) -> SSEChunks:
        """This reader, its items read through ``guard`` (a generator over them, such as a
        run framer's that tells the source's own failures apart from the decoder's): still
        one a decoder may read fused, which a generator around it would not be."""
        self._items = guard(self._items)
        return self

    def chunk(self, match: Match[str] | tuple[Any, ...]) -> dict[str, Any]:
        """The chunk dict of a matched event, as the general path reads it (of a tuple a
        form's payload reader made: its text's match, which it stands for)."""
        if not self._numbered:
            return self._chunk(self._match(match))
        n = self.number(match)
        return self._chunk(self._match(match), n)

    def _match(self, item: Match[str] | tuple[Any, ...]) -> Match[str]:
        if not isinstance(item, tuple):
            return item
        assert self._form is not None, "a payload reader's tuple comes from a fused reading"
        found = self._form.payload.fullmatch(item[0])
        assert found is not None, "a payload reader's tuple is of a text the form matches"
        return found

    def number(self, match: Match[str] | tuple[Any, ...]) -> int:
        """The number of a matched event of the list being read (``numbered``): found from
        where the last one was (the items are read in order, so a piece is searched once
        however many of its matches make chunks; an equal tuple before it is passed by)."""
        piece = self._piece
        try:
            at = piece.index(match, self._seen)
            while piece[at] is not match:
                at = piece.index(match, at + 1)
        except ValueError:  # (none of the list being read, after the last: no guard reads
            return 0  # ahead of its consumer, and none reads the items out of order)
        self._seen = at + 1
        return self._base + at


# ------------------------------------------------------------------ the one loop


def read_stream(
    decoder: Any,
    chunks: Iterable[Any],
    form: DeltaForm,
    rule: Callable[..., Taken] | Callable[..., TakenMany],
    quick: Callable[[Any], tuple[Any, ...] | None] | None = None,
) -> Iterator[BaseEvent]:
    """A decoder's whole stream (``Decoder.events``): its events, ``close()``'s included.

    A delta ``form`` matched in toolwire's own reader, and a chunk ``quick`` reads (a dict
    the reader parsed, an SDK object: the same fields, or ``None``), go to the decoder's
    ``rule``; what it takes counts as a chunk read (``chunk_index``), what it passes goes to
    ``decoder.feed`` as the chunk dict; every other chunk goes to ``feed``. Lazy, as a
    generator: the reader is fused at the first step and unfused when the loop ends,
    however it ends."""
    if type(chunks) is FormProbe:  # asked only which form and rule this decoder reads
        chunks.form, chunks.rule = form, rule
        return iter(())
    reader = chunks if type(chunks) is SSEChunks else None
    if reader is None and quick is None:
        return _each_fed(decoder, chunks)
    # (one generator: the form's loop, which also closes the decoder and unfuses the reader)
    loop: Iterator[BaseEvent] = form.loop(decoder, chunks, reader, form, rule, quick)
    return loop


class FormProbe:
    """What a decoder's ``events(probe)`` hands :func:`read_stream` to learn the decoder's
    delta form and rule without reading anything (``form`` stays ``None`` for a decoder
    that reads no form): a push reading (``protocol.pushed``) takes each piece's matches
    with them."""

    __slots__ = ("form", "rule")

    def __init__(self) -> None:
        self.form: DeltaForm | None = None
        self.rule: Callable[..., Any] | None = None

    def __iter__(self) -> Iterator[Any]:  # an ``events`` that reads its chunks reads none
        return iter(())


def _each_fed(decoder: Any, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
    """Nothing to read here: ``BaseDecoder.events``, the loop in C."""
    yield from chain.from_iterable(map(decoder.feed, chunks))
    yield from decoder.close()


__all__ = [
    "ABSENT",
    "ABSENT_OR_NULL",
    "OTHERS",
    "OTHERS_FROM_HERE",
    "PASS",
    "SCALAR",
    "SCALAR_OR_EMPTY_LIST",
    "DeltaForm",
    "FormProbe",
    "Index",
    "Maybe",
    "OneOf",
    "SSEChunks",
    "Taken",
    "TakenMany",
    "Text",
    "Whole",
    "Word",
    "read_stream",
    "scan_string",
]
