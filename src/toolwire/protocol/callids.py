"""Tool call ids across vendors: repeated vendor ids kept apart, ids a target rejects mapped.

Two problems, one place:

* **Decoding.** A vendor may give two calls one id (OpenAI Chat choices with ``n > 1``,
  a buggy proxy, a replayed stream). AG-UI ids must be unique in a thread, and merging
  the two calls would lose one. :class:`CallIds` keeps the vendor's id for its first call
  and mints a deterministic id for every repeat, with the vendor's id in the call's
  metadata under :data:`VENDOR_ID_KEY`, so an encoder for that vendor can give it back.
* **Encoding.** One vendor's ids may break another's rules (OpenAI Chat takes at most 40
  characters; Anthropic only ``[a-zA-Z0-9_-]``). :class:`IdMapper` sends an id that
  conforms unchanged and maps one that does not to a deterministic conforming id (same
  id in, same id out, in every request of a thread), the call and its result together,
  never onto another id of the request, and reports each mapping as a loss.

Each target's documented rule is data in its adapter's wire vocabulary (an
:class:`IdRule`); the mechanism lives here once.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import AssistantMessage, ToolMessage

from toolwire.losses import Loss
from toolwire.protocol.ids import digest, mint_id

#: Call metadata: ``{"vendor": adapter name, "id": the vendor's own id}`` when the AG-UI
#: id was minted because the vendor repeated its id.
VENDOR_ID_KEY = "toolwire.vendor_id"


# ------------------------------------------------------------------ decoding


class CallIds:
    """The AG-UI id of each call a decoder opens, unique even when the vendor repeats one.

    ``assign`` gives the vendor's id the first time it is seen (and when no earlier
    call of the thread, ``known``, holds it) and a minted id after; ``answer`` finds
    which call a result carrying a vendor id answers (the first of that id's calls
    still unanswered, in order).
    """

    def __init__(self, vendor: str) -> None:
        self.vendor = vendor
        #: vendor id -> its AG-UI id, or the AG-UI ids in order once the vendor repeated it
        #: (one table entry a call, the id itself its key and, commonly, its value: a
        #: stream of many calls must hold every id, and holds it once)
        self._calls: dict[str, str | list[str]] = {}
        #: the AG-UI ids given that are not their call's vendor id (repeats, ids the
        #: thread already held): with ``_calls`` they are every id given (``_taken``)
        self._minted: set[str] = set()
        self._answered: set[str] = set()

    def _taken(self, agui: str) -> bool:
        """Whether some call was given ``agui``: a minted id, or a vendor id its own call
        kept (it is then among the AG-UI ids of that vendor id)."""
        if agui in self._minted:
            return True
        mine = self._calls.get(agui)
        return mine is not None and (mine == agui if isinstance(mine, str) else agui in mine)

    def assign(self, vendor_id: str, known: Collection[str] = ()) -> str:
        """A new call's AG-UI id (the vendor's own when it is free)."""
        seen = self._calls.get(vendor_id)
        if seen is None and vendor_id not in self._minted and vendor_id not in known:
            self._calls[vendor_id] = vendor_id  # the common case: a new id, kept as it is
            return vendor_id
        mine = [] if seen is None else [seen] if isinstance(seen, str) else seen
        agui = vendor_id
        n = len(mine)
        while self._taken(agui) or agui in known:
            agui = mint_id("call", self.vendor, vendor_id, n)
            n += 1
        if agui != vendor_id:
            self._minted.add(agui)
        if seen is None:
            self._calls[vendor_id] = agui
        else:
            mine.append(agui)
            self._calls[vendor_id] = mine
        return agui

    def metadata(self, agui_id: str, vendor_id: str) -> dict[str, Any]:
        """What the call's start event carries so the vendor's id is not lost."""
        if agui_id == vendor_id:
            return {}
        return {VENDOR_ID_KEY: {"vendor": self.vendor, "id": vendor_id}}

    def answer(self, vendor_id: str) -> str | None:
        """The AG-UI id of the call a result with ``vendor_id`` answers (and mark it)."""
        seen = self._calls.get(vendor_id)
        if not seen:
            return None
        calls = [seen] if isinstance(seen, str) else seen
        for agui in calls:
            if agui not in self._answered:
                self._answered.add(agui)
                return agui
        return calls[-1]


# ------------------------------------------------------------------ encoding


@dataclass(frozen=True)
class IdRule:
    """What a target accepts as a tool call id, as its documentation says."""

    target: str
    max_length: int | None = None
    #: a regular expression the whole id must match
    pattern: str | None = None
    #: where the rule is documented (for the loss message and the docs)
    source: str = ""
    #: what a minted stand-in starts with (``call_``); ``""`` for a target whose ids admit
    #: no separator (Mistral: nine letters and digits), which then get ``max_length`` hex
    #: digits and nothing else
    prefix: str = "call_"
    #: for each id met so far, None when it conforms, else its first stand-in and the loss
    #: saying so: a thread's history is sent again with every turn, its ids with it
    _verdicts: dict[str, tuple[str, Loss] | None] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "takes", _taker(self.max_length, self.pattern))

    def __reduce__(self) -> tuple[Any, ...]:
        # (made again from its fields: ``takes`` is a closure, the verdicts a cache)
        return (IdRule, (self.target, self.max_length, self.pattern, self.source, self.prefix))

    #: ``why_not(call_id) is None``, as one call made for the rule (most ids conform: the
    #: stream encoders ask for every call, issue 38)
    takes: Callable[[str], bool] = field(init=False, repr=False, compare=False, hash=False)

    def verdict(self, call_id: str) -> tuple[str, Loss] | None:
        """None when the target takes ``call_id``; otherwise its first stand-in
        (:meth:`conforming` with no salt) and the loss reporting that mapping."""
        if self.takes(call_id):  # (no table entry for an id sent as it is)
            return None
        verdicts = self._verdicts
        # one look-up (``get``), never a test then a read: another thread may clear the
        # table between the two (the server converts large requests in worker threads)
        known = verdicts.get(call_id, _UNKNOWN)
        if known is not _UNKNOWN:
            verdict: tuple[str, Loss] | None = known
            return verdict
        why = self.why_not(call_id)
        found = None if why is None else self._remapped(call_id, why, self.conforming(call_id))
        if len(verdicts) >= _VERDICTS_KEPT:
            verdicts.clear()  # bounded: a long-lived process meets ever new ids
        verdicts[call_id] = found
        return found

    def _remapped(self, call_id: str, why: str, out: str) -> tuple[str, Loss]:
        loss = Loss(
            kind="call-id-remapped",
            target=self.target,
            reason=f"{self.target} rejects this id ({why}); it is sent as {out!r}, and its "
            "result with it",
            tool_call_id=call_id,
            sent_as=out,
        )
        return out, loss

    def why_not(self, call_id: str) -> str | None:
        """None when the target takes ``call_id``; otherwise why it would reject it."""
        if not call_id:
            return "the id is empty"
        if self.max_length is not None and len(call_id) > self.max_length:
            return f"{len(call_id)} characters, more than the {self.max_length} it takes"
        if self.pattern is not None and _whole_match(self.pattern)(call_id) is None:
            return f"it does not match {self.pattern}"
        return None

    def conforming(self, call_id: str, salt: int = 0) -> str:
        """The deterministic stand-in for ``call_id`` (``call_<hex>``, within the limit; a
        rule with ``prefix=""`` gets hex digits filling ``max_length``)."""
        room = 24 if self.max_length is None else min(24, self.max_length - len(self.prefix))
        # (the digest ``mint_id("call", target, call_id, salt)`` holds after its prefix)
        out = self.prefix + digest(self.target, call_id, salt, length=room)
        assert self.why_not(out) is None, f"{self.target}: minted id {out!r} breaks its rule"
        return out


#: the most ids one rule remembers its verdict on (then it starts again)
_VERDICTS_KEPT = 4096
#: no verdict remembered yet (a verdict may be None)
_UNKNOWN: Any = object()


@functools.lru_cache(maxsize=64)  # the few patterns the adapters declare
def _whole_match(pattern: str) -> Callable[[str], re.Match[str] | None]:
    return re.compile(pattern).fullmatch


def _taker(max_length: int | None, pattern: str | None) -> Callable[[str], bool]:
    """Whether a rule of ``max_length`` and ``pattern`` takes an id (``why_not`` is None):
    one id not empty, within the length, the pattern matching it whole."""
    if pattern is None:
        if max_length is None:
            return bool
        return lambda call_id: 0 < len(call_id) <= max_length
    match = _whole_match(pattern)
    if max_length is None:
        return lambda call_id: call_id != "" and match(call_id) is not None
    return lambda call_id: 0 < len(call_id) <= max_length and match(call_id) is not None


@dataclass
class IdMapper:
    """One request's (or stream's) map from AG-UI call ids to ids ``rule`` accepts.

    ``thread_ids`` are every call id the request holds: an id that conforms is sent
    unchanged, and a minted id never lands on one of them. Give the mapper every call
    id before the first mapping when they are known (a request); a stream maps as it
    goes. The vendor's own id kept in a call's metadata (:data:`VENDOR_ID_KEY`) is given
    back to that vendor when it conforms and no other call of the request holds it.
    """

    rule: IdRule
    #: the ids given (a call id mapped is a key of ``_out``: together, every id held)
    thread_ids: set[str] = field(default_factory=set)
    losses: list[Loss] = field(default_factory=list)
    #: call id -> the id sent for it (most often itself: then it is in no other table)
    _out: dict[str, str] = field(default_factory=dict, init=False)
    #: the ids sent that are not their call's own (minted or given back): with the ids
    #: ``_out`` maps to themselves, every id sent (a stream of many calls sent as they are
    #: keeps each in one table, issue 38)
    _sent: set[str] = field(default_factory=set, init=False)

    def know(self, ids: Iterable[str]) -> None:
        self.thread_ids.update(ids)

    def __call__(self, call_id: str, metadata: Any = None) -> str:
        """The id to send for ``call_id`` (a call's or its result's), the same every time."""
        out = self._out.get(call_id)
        if out is not None:
            return out
        # (a plain dict without the key gives nothing back: most metadata)
        if metadata and (type(metadata) is not dict or VENDOR_ID_KEY in metadata):
            out = self._given_back(call_id, metadata)
        if out is None:
            found = None if self.rule.takes(call_id) else self.rule.verdict(call_id)
            if found is None:
                out = call_id
                if call_id in self._sent:  # (a stream's earlier call was sent as this id)
                    out = self._unheld(call_id, None, salt=0)
            else:
                out, loss = found
                if self._held(out):  # taken: the next salts
                    why = self.rule.why_not(call_id)
                    assert why is not None
                    out = self._unheld(call_id, why)
                else:
                    self.losses.append(loss)
        self._out[call_id] = out
        if out != call_id:
            self._sent.add(out)
        return out

    def _unheld(self, call_id: str, why: str | None, salt: int = 1) -> str:
        """The first salted stand-in for ``call_id`` no call holds, its loss recorded: the
        target rejects ``call_id`` (``why``), or (``None``) it takes it but an earlier call
        of the stream was already sent as it, and two calls must not share one id."""
        out = self.rule.conforming(call_id, salt)
        while self._held(out):
            salt += 1
            out = self.rule.conforming(call_id, salt)
        if why is not None:
            self.losses.append(self.rule._remapped(call_id, why, out)[1])
        else:
            reason = (
                f"an earlier call was already sent as this id; it is sent as {out!r}, "
                "and its result with it"
            )
            self.losses.append(
                Loss(
                    kind="call-id-remapped",
                    target=self.rule.target,
                    reason=reason,
                    tool_call_id=call_id,
                    sent_as=out,
                )
            )
        return out

    def _held(self, sent: str) -> bool:
        """Whether ``sent`` is an id the request holds or one already sent."""
        return sent in self.thread_ids or sent in self._out or sent in self._sent

    def _given_back(self, call_id: str, metadata: Any) -> str | None:
        if not isinstance(metadata, dict):
            return None
        kept = metadata.get(VENDOR_ID_KEY)
        if not isinstance(kept, dict) or kept.get("vendor") != self.rule.target:
            return None
        vendor_id = kept.get("id")
        if not isinstance(vendor_id, str) or self.rule.why_not(vendor_id) is not None:
            return None
        # (an id sent as it is is a call id ``_out`` holds: not this call's, it has none yet)
        held = vendor_id in self.thread_ids or vendor_id in self._out
        if vendor_id in self._sent or (held and vendor_id != call_id):
            return None  # another call of this request holds it: the minted id stays
        return vendor_id

    def take_losses(self) -> list[Loss]:
        """The losses recorded since the last call (a stream encoder announces as it goes)."""
        out, self.losses = self.losses, []
        return out


def history_call_ids(messages: Iterable[Any]) -> set[str]:
    """Every call id a history's assistant messages and tool messages hold."""
    out: set[str] = set()
    for m in messages:  # isinstance, not getattr with a default: that is slow on a model
        if isinstance(m, AssistantMessage):
            out.update(c.id for c in m.tool_calls or ())
        elif isinstance(m, ToolMessage):
            out.add(m.tool_call_id)
    return out


__all__ = ["VENDOR_ID_KEY", "CallIds", "IdMapper", "IdRule", "history_call_ids"]
