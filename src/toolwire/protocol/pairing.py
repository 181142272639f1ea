"""Pairing tool calls with their results in a history, the way vendors demand.

Vendors want each assistant turn's calls answered right after it, in call
order. AG-UI histories may hold results late, out of order, or not at all.
:func:`pair_history` regroups a history into :class:`Turn` items so every
encoder maps the same, already-paired structure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ag_ui.core import AssistantMessage, Message, ToolMessage

from toolwire.errors import UnansweredToolCall
from toolwire.losses import Loss


@dataclass
class Turn:
    """One history item: a plain message, or an assistant message with its calls' results.

    ``results`` holds, for an assistant message with calls, one tool message per
    call in call order (``None`` where the history has none).
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


def pair_history(
    messages: Sequence[Message],
    *,
    target: str,
    allow_trailing_unanswered: bool = True,
    allow_unanswered: bool = False,
) -> Paired:
    """Group every tool message under the assistant message that made its call.

    A result whose call is not in the history is dropped with a loss (no vendor
    accepts an orphan result). An unanswered call raises
    :class:`~toolwire.errors.UnansweredToolCall`, except in the last assistant
    turn when ``allow_trailing_unanswered`` (the application has yet to answer),
    or anywhere when ``allow_unanswered`` (a target without adjacency rules).
    """
    owner: dict[str, tuple[int, int]] = {}  # call id -> (turn, slot): no per-result search
    turns: list[Turn] = []
    losses: list[Loss] = []
    for m in messages:
        if isinstance(m, ToolMessage):
            continue
        turns.append(Turn(m))
        if isinstance(m, AssistantMessage) and m.tool_calls:
            turns[-1].results = [None] * len(m.tool_calls)
            slots: dict[str, int] = {}
            for j, c in enumerate(m.tool_calls):
                slots.setdefault(c.id, j)  # the first slot of an id, as list.index found
            for cid, j in slots.items():
                owner[cid] = (len(turns) - 1, j)
    for m in messages:
        if not isinstance(m, ToolMessage):
            continue
        found = owner.get(m.tool_call_id)
        if found is None:
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
        at, slot = found
        turn = turns[at]
        if turn.results[slot] is not None:
            losses.append(
                Loss(
                    kind="duplicate-result-dropped",
                    target=target,
                    reason="the call is already answered; the first answer is kept",
                    tool_call_id=m.tool_call_id,
                )
            )
            continue
        turn.results[slot] = m
    last_with_calls = max((i for i, t in enumerate(turns) if t.results), default=-1)
    missing: list[str] = []
    for i, t in enumerate(turns):
        if allow_trailing_unanswered and i == last_with_calls and i == len(turns) - 1:
            continue
        missing.extend(t.unanswered)
    if missing and not allow_unanswered:
        raise UnansweredToolCall(target, missing)
    return Paired(turns, losses)


__all__ = ["Paired", "Turn", "pair_history"]
