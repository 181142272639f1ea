"""The replay provider: answers from recorded vendor conversations, offline, with no key.

It is a provider like the others: the incoming ``RunAgentInput`` is encoded into each
recording's vendor request with that vendor's adapter, and the recorded request whose
conversation it equals (``toolwire.matching``: as data, first difference named) gives the
response, decoded by the same adapter into a complete AG-UI run. So a recorded multi-turn
conversation plays turn after turn from a UI: turn 2 matches only when the UI sends back
turn 1's calls and the results the recording holds.

Only the conversation is compared (the keys in ``CONVERSATION``): the model, sampling options
and tool declarations are the recording's, and a page declares its tools its own way.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ag_ui.core import PROTOCOL_VERSION, BaseEvent, RunAgentInput, RunErrorEvent, RunStartedEvent

from toolwire import adapters
from toolwire.errors import ToolwireError
from toolwire.matching import request_difference
from toolwire.recordings import Exchange, frame_exchange, model_exchanges
from toolwire.server.config import AgentConfig, ConfigError

#: vendor -> the request body keys that hold the conversation
CONVERSATION: dict[str, tuple[str, ...]] = {
    "anthropic": ("system", "messages"),
    "openai_chat": ("messages",),
    "openai_responses": ("instructions", "input"),
    "gemini": ("contents",),
}


def default_cassettes() -> Path:
    """The project's ``cassettes/`` folder: beside ``src/`` in a checkout, else the cwd's."""
    here = Path(__file__).resolve().parents[3] / "cassettes"
    return here if here.is_dir() else Path.cwd() / "cassettes"


def _conversation(vendor: str, body: Any) -> dict[str, Any]:
    keys = CONVERSATION[vendor]
    return {k: body[k] for k in keys if isinstance(body, dict) and body.get(k) is not None}


@dataclass(frozen=True)
class RecordedTurn:
    """One recorded request/response pair a live conversation can match."""

    vendor: str
    source: str  # file name and position, for messages
    exchange: Exchange
    model: str
    recorded: dict[str, Any]  # the recorded conversation, as recorded
    restated: dict[str, Any] | None  # the same after decode_request -> encode_request


def _quiet_encode(vendor: str, run_input: RunAgentInput, model: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the replay compares; losses are the real run's
        return adapters.get(vendor).encode_request(run_input, model=model)


def _restated(vendor: str, body: dict[str, Any], model: str) -> dict[str, Any] | None:
    """The recorded request as this adapter would write it (a string content as a text block)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            decoded = adapters.get(vendor).decode_request(body)
        return _conversation(vendor, _quiet_encode(vendor, decoded, model))
    except ToolwireError:
        return None


def _files(paths: Iterable[Path]) -> Iterable[tuple[str, Path]]:
    """(vendor, file) for each cassette: a vendor's folder, or a file inside one."""
    for p in paths:
        if p.is_dir() and p.name in CONVERSATION:
            yield from ((p.name, f) for f in sorted(p.glob("*.yaml")))
        elif p.is_dir():
            for sub in sorted(p.iterdir()):
                if sub.is_dir() and sub.name in CONVERSATION:
                    yield from ((sub.name, f) for f in sorted(sub.glob("*.yaml")))
        elif p.is_file() and p.parent.name in CONVERSATION:
            yield p.parent.name, p
        else:
            raise ConfigError(
                f"config: replay cassettes: {p}: not a cassette folder or a cassette in a folder "
                f"named for its vendor ({', '.join(CONVERSATION)})"
            )


def index_recordings(paths: Iterable[Path]) -> list[RecordedTurn]:
    """Every recorded model turn with a request body, in file order."""
    turns: list[RecordedTurn] = []
    for vendor, f in _files(paths):
        adapter = adapters.get(vendor)
        try:
            exchanges = model_exchanges(adapter, f.read_bytes(), f.name)
        except (OSError, ToolwireError) as exc:
            raise ConfigError(f"config: replay cassettes: {f}: {exc}") from None
        for i, ex in enumerate(exchanges):
            body = ex.request_body
            if not isinstance(body, dict):
                continue  # a response without its request cannot be matched
            model = str(body.get("model") or f"{vendor}-recorded")
            turns.append(
                RecordedTurn(
                    vendor=vendor,
                    source=f"{f.parent.name}/{f.name}#{i}",
                    exchange=ex,
                    model=model,
                    recorded=_conversation(vendor, body),
                    restated=_restated(vendor, body, model),
                )
            )
    return turns


def _as_body(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)


def _nearness(recorded: dict[str, Any], live: dict[str, Any]) -> tuple[int, int]:
    """(same length, leading items in common) of two conversations: the nearest is reported."""
    same = common = 0
    for key, a in recorded.items():
        b = live.get(key)
        if isinstance(a, list) and isinstance(b, list):
            same += len(a) == len(b)
            pairs = enumerate(zip(a, b, strict=False))
            common += next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)))
    return same, common


class ReplayProvider:
    """Answers a run with the recorded turn whose request this conversation is."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config
        paths = [Path(p) for p in config.cassettes] or [default_cassettes()]
        self.turns = index_recordings(paths)
        if not self.turns:
            where = ", ".join(map(str, paths))
            raise ConfigError(f"config: agent {config.name!r}: no recorded request in {where}")

    @property
    def model(self) -> str | None:
        return self.config.model or "recorded"

    def unavailable(self) -> str | None:
        return None

    def match(self, run_input: RunAgentInput) -> tuple[RecordedTurn | None, str]:
        """The recorded turn this input continues, or None and why (the nearest difference)."""
        encoded: dict[tuple[str, str], dict[str, Any] | str] = {}
        nearest: tuple[tuple[int, int], str] = ((-1, -1), "no recorded turn to compare with")
        for turn in self.turns:
            key = (turn.vendor, turn.model)
            if key not in encoded:
                try:
                    body = _quiet_encode(turn.vendor, run_input, turn.model)
                    encoded[key] = _conversation(turn.vendor, body)
                except ToolwireError as exc:
                    encoded[key] = str(exc)
            live = encoded[key]
            if isinstance(live, str):
                continue  # this vendor cannot take this conversation at all
            uri = turn.exchange.uri
            why = None
            for recorded in (turn.recorded, turn.restated):
                if recorded is None:
                    continue
                why = request_difference(
                    turn.exchange.method, uri, _as_body(recorded), "POST", uri, _as_body(live)
                )
                if why is None:
                    return turn, turn.source
            score = _nearness(turn.recorded, live)
            if score > nearest[0]:
                nearest = (score, f"{turn.source}: {why}")
        return None, (
            f"no recorded turn has this conversation ({len(self.turns)} compared); "
            f"nearest {nearest[1]}"
        )

    async def events(self, run_input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        turn, why = self.match(run_input)
        if turn is None:
            yield RunStartedEvent(
                thread_id=run_input.thread_id,
                run_id=run_input.run_id,
                protocol_version=PROTOCOL_VERSION,
                input=run_input,
            )
            yield RunErrorEvent(message=why, code="replay_no_match")
            return
        run = frame_exchange(
            adapters.get(turn.vendor),
            turn.exchange,
            thread_id=run_input.thread_id,
            run_id=run_input.run_id,
            run_input=run_input,
        )
        for event in run:
            yield event
            await asyncio.sleep(self.config.pace)  # 0: still lets a disconnect or shutdown in


__all__ = [
    "CONVERSATION",
    "RecordedTurn",
    "ReplayProvider",
    "default_cassettes",
    "index_recordings",
]
