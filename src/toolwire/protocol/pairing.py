"""Pairing tool calls with their results in a history, the way vendors demand.

Vendors want each assistant turn's calls answered right after it, in call
order. AG-UI histories may hold results late, out of order, or not at all.
:func:`pair_history` regroups a history into :class:`Turn` items so every
encoder maps the same, already-paired structure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ag_ui.core import AssistantMessage, Message, ToolCall, ToolMessage

from toolwire.errors import DuplicateToolCallId, UnansweredToolCall, UnsupportedInput
from toolwire.losses import Loss
from toolwire.protocol.ids import result_message_id


@dataclass(slots=True)  # one per history message: slots make it cheaper to build and read
class Turn:
    """One history item: a plain message, or an assistant message with its calls' results.

    ``results`` holds, for an assistant message with calls, one tool message per
    call in call order (``None`` where the history has none). With
    ``pair_history(keep_orphans=True)`` a result whose call is not in the history is
    a turn of its own (its ``message`` is the tool message), where it stands.
    """

    message: Message
    results: list[ToolMessage | None] = field(default_factory=list)

    @property
    def unanswered(self) -> list[str]:
        if not isinstance(self.message, AssistantMessage):
            return []
        calls = self.message.tool_calls or []
        return [c.id for c, r in zip(calls, self.results, strict=True) if r is None]


@dataclass
class Paired:
    turns: list[Turn]
    losses: list[Loss] = field(default_factory=list)
    #: every call id the history holds, its calls' and its results' (orphans too): what
    #: ``callids.history_call_ids`` gives of the same messages, found in the same pass
    call_ids: set[str] = field(default_factory=set)
    #: how many calls have no result (counted while pairing: no per-turn search for one)
    unanswered: int = 0


def pair_history(
    messages: Sequence[Message],
    *,
    target: str,
    allow_trailing_unanswered: bool = True,
    allow_unanswered: bool = False,
    keep_orphans: bool = False,
) -> Paired:
    """Group every tool message under the assistant message that made its call.

    A result whose call is not in the history is dropped with a loss (no vendor
    accepts an orphan result), or, with ``keep_orphans`` (a target that holds a result
    alone), kept as a turn of its own where it stands; either way a second result for
    one call is a loss and the first is kept. An unanswered call raises
    :class:`~toolwire.errors.UnansweredToolCall`, except in the last assistant
    turn when ``allow_trailing_unanswered`` (the application has yet to answer),
    or anywhere when ``allow_unanswered`` (a target without adjacency rules).
    """
    owner: dict[str, tuple[int, int]] = {}  # call id -> (turn, slot): no per-result search
    turns: list[Turn] = []
    losses: list[Loss] = []
    results: list[tuple[int, ToolMessage]] = []  # each result, with the turn it stands before
    calls_made = answered = 0
    add_turn, add_result = turns.append, results.append
    for m in messages:
        # the role first: isinstance on a pydantic class costs more than a string test
        if m.role == "tool" and isinstance(m, ToolMessage):
            add_result((len(turns), m))
            continue
        # (the instance dict: only an assistant message has calls, and reading a field a
        # class lacks through getattr goes through pydantic's slow __getattr__)
        calls = m.__dict__.get("tool_calls")
        if not calls or not isinstance(m, AssistantMessage):
            add_turn(Turn(m, []))
            continue
        at = len(turns)
        add_turn(Turn(m, [None] * len(calls)))
        calls_made += len(calls)
        for j, c in enumerate(calls):
            cid = c.id
            if cid in owner:  # never merged, never "unanswered": say what is wrong
                first = turns[owner[cid][0]].message.id
                raise DuplicateToolCallId(target, cid, first, m.id)
            owner[cid] = (at, j)
    orphans: dict[str, tuple[int, ToolMessage]] = {}  # kept (keep_orphans), first per call
    for place, m in results:
        found = owner.get(m.tool_call_id)
        if found is None and not keep_orphans:
            losses.append(
                Loss(
                    kind="orphan-result-dropped",
                    target=target,
                    reason="no call with this id is in the history, and the vendor rejects "
                    "a result that answers nothing",
                    tool_call_id=m.tool_call_id,
                )
            )
            continue
        if found is None:
            if m.tool_call_id in orphans:
                losses.append(_duplicate(target, m.tool_call_id))
            else:
                orphans[m.tool_call_id] = (place, m)
            continue
        at, slot = found
        turn = turns[at]
        if turn.results[slot] is not None:
            losses.append(_duplicate(target, m.tool_call_id))
            continue
        turn.results[slot] = m
        answered += 1
    unanswered = calls_made - answered
    if unanswered and not allow_unanswered:
        last_with_calls = max((i for i, t in enumerate(turns) if t.results), default=-1)
        missing: list[str] = []
        for i, t in enumerate(turns):
            if not t.results or all(r is not None for r in t.results):
                continue  # no calls, or every one answered
            if allow_trailing_unanswered and i == last_with_calls and i == len(turns) - 1:
                continue
            missing.extend(t.unanswered)
        if missing:
            raise UnansweredToolCall(target, missing)
    if orphans:
        turns = _placed(turns, list(orphans.values()))
    call_ids = set(owner)
    call_ids.update(m.tool_call_id for _, m in results)
    return Paired(turns, losses, call_ids, unanswered)


def _duplicate(target: str, call_id: str) -> Loss:
    return Loss(
        kind="duplicate-result-dropped",
        target=target,
        reason="the call is already answered; the first answer is kept",
        tool_call_id=call_id,
    )


def _placed(turns: list[Turn], results: list[tuple[int, ToolMessage]]) -> list[Turn]:
    """``turns`` with each kept orphan result as a turn before the one it stood before."""
    out: list[Turn] = []
    pending = iter(sorted(results, key=lambda r: r[0]))
    nxt = next(pending, None)
    for i, t in enumerate(turns):
        while nxt is not None and nxt[0] == i:
            out.append(Turn(nxt[1]))
            nxt = next(pending, None)
        out.append(t)
    while nxt is not None:
        out.append(Turn(nxt[1]))
        nxt = next(pending, None)
    return out


#: What an encoder does with a call that has no result (``encode_request(unanswered=...)``).
UNANSWERED = ("error", "drop", "answer")


def settle_unanswered(
    paired: Paired,
    *,
    target: str,
    policy: str = "error",
    text: str | None = None,
    exempt: Callable[[ToolCall], bool] | None = None,
) -> None:
    """Make every call of ``paired`` answered, as the caller chose, or raise.

    ``"error"`` raises :class:`~toolwire.errors.UnansweredToolCall`; ``"drop"`` removes
    each unanswered call from its assistant message (an assistant message left with
    nothing is removed too), like the Vercel AI SDK's ``ignoreIncompleteToolCalls``;
    ``"answer"`` answers each as failed with ``text``, which the caller must give
    (toolwire invents no result, and Anthropic rejects an error result without content).
    Either way each call is a loss. ``exempt`` names calls the vendor answers itself
    (server tools, code execution), which are never touched.
    """
    if policy not in UNANSWERED:
        raise UnsupportedInput(
            f"{target}: unanswered must be one of {', '.join(UNANSWERED)}, not {policy!r}"
        )
    if policy == "answer" and not text:
        raise UnsupportedInput(
            f"{target}: unanswered='answer' needs unanswered_text, the failure text each "
            "unanswered call is answered with (toolwire invents none)"
        )
    if not paired.unanswered:
        return  # every call answered: the usual history
    skip = exempt or (lambda _c: False)
    missing = [
        c.id
        for t in paired.turns
        if isinstance(t.message, AssistantMessage)
        for c, r in zip(t.message.tool_calls or [], t.results, strict=True)
        if r is None and not skip(c)
    ]
    if not missing:
        return
    if policy == "error":
        raise UnansweredToolCall(target, missing)
    kept: list[Turn] = []
    for t in paired.turns:
        m = t.message
        if not isinstance(m, AssistantMessage) or not m.tool_calls:
            kept.append(t)
            continue
        pairs = list(zip(m.tool_calls, t.results, strict=True))
        if policy == "answer":
            for n, (c, r) in enumerate(pairs):
                if r is None and not skip(c):
                    t.results[n] = ToolMessage(
                        id=result_message_id(c.id),
                        tool_call_id=c.id,
                        content=text or "",
                        error=text,
                    )
                    paired.losses.append(_unanswered_loss(target, c.id, "answered as failed"))
            kept.append(t)
            continue
        stay = [(c, r) for c, r in pairs if r is not None or skip(c)]
        for c, r in pairs:
            if r is None and not skip(c):
                paired.losses.append(_unanswered_loss(target, c.id, "dropped from the request"))
        if not stay and not m.content:
            continue  # nothing is left of the message
        update: dict[str, object] = {"tool_calls": [c for c, _ in stay] or None}
        kept.append(Turn(m.model_copy(update=update), [r for _, r in stay]))
    paired.turns[:] = kept
    paired.unanswered = sum(r is None for t in kept for r in t.results)  # the exempt ones


def _unanswered_loss(target: str, call_id: str, what: str) -> Loss:
    return Loss(
        kind="unanswered-call-" + ("dropped" if what.startswith("dropped") else "answered"),
        target=target,
        reason=f"the call has no result before the conversation goes on, and {target} "
        f"rejects such a request; {what}, as the caller asked (unanswered=...)",
        tool_call_id=call_id,
    )


__all__ = ["UNANSWERED", "Paired", "Turn", "pair_history", "settle_unanswered"]
