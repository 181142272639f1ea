"""The replay provider: answers from recorded vendor conversations, offline, with no key.

It is a provider like the others. The incoming ``RunAgentInput`` is encoded into each
recording's vendor request with that vendor's adapter, and the recorded request whose
conversation it equals (``toolwire.matching``: as data, as recorded or as the adapter
restates it, every difference named; the cassette kit's notion too) is the turn
to play. The turn then runs the way a real one does: ``toolwire.arun`` over the vendor's own
async SDK client, whose HTTP goes to a :class:`ReplayTransport` that checks the SDK's actual
request against the recording (as vcrpy does) and answers with the recorded response. So a
recorded multi-turn conversation plays turn after turn from a UI: turn 2 matches only when the
UI sends back turn 1's calls and the results the recording holds.

Only the conversation is compared (each model adapter's ``CLIENT.conversation_keys``): the
model, sampling options
and tool declarations are the recording's, and a page declares its tools its own way.
Recorded whole-message (non-streamed) answers are left out, since ``toolwire.arun`` streams.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    RunAgentInput,
    RunErrorEvent,
    RunStartedEvent,
    TextPart,
    UserMessage,
)

from toolwire import adapters
from toolwire.errors import ToolwireError
from toolwire.losses import held
from toolwire.matching import Recorded, restated_body
from toolwire.recordings import Exchange, model_exchanges
from toolwire.server._config import AgentConfig, ConfigError
from toolwire.server._offload import OFFLOAD


def conversations() -> dict[str, tuple[str, ...]]:
    """Model adapter -> the request body keys that hold the conversation (the registry's)."""
    return {n: tuple(adapters.client(n).conversation_keys) for n in adapters.model_names()}


def __getattr__(name: str) -> object:
    """``CONVERSATION``: :func:`conversations`, read from the registry when asked."""
    if name == "CONVERSATION":
        return conversations()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_cassettes() -> Path:
    """The project's ``cassettes/`` folder: beside ``src/`` in a checkout, else the cwd's."""
    here = Path(__file__).resolve().parents[3] / "cassettes"
    return here if here.is_dir() else Path.cwd() / "cassettes"


def _conversation(vendor: str, body: Any) -> dict[str, Any]:
    keys = adapters.client(vendor).conversation_keys
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

    def difference(self, method: str, uri: str, live: dict[str, Any]) -> str | None:
        """Why a live conversation is not this turn's (every difference), or None if it is.

        The one notion of the same request (``toolwire.matching.Recorded``), which the
        cassette kit uses too: as recorded, or as the adapter restates it."""
        ex = self.exchange
        found = Recorded(ex.method, ex.uri, self.recorded, self.restated).differences(
            method, uri, live
        )
        return "; ".join(found) if found else None


def _quiet_encode(vendor: str, run_input: RunAgentInput, model: str) -> Any:
    with held():  # the replay compares; the losses are the real run's, reported there
        return adapters.get(vendor).encode_request(run_input, model=model)


def _restated(vendor: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """The recorded conversation as this adapter would write it (``toolwire.matching``)."""
    restated = restated_body(vendor, body)
    return None if restated is None else _conversation(vendor, restated)


def _files(paths: Iterable[Path]) -> Iterable[tuple[str, Path]]:
    """(vendor, file) for each cassette: a vendor's folder, or a file inside one."""
    folders = conversations()
    for p in paths:
        if p.is_dir() and p.name in folders:
            yield from ((p.name, f) for f in sorted(p.glob("*.yaml")))
        elif p.is_dir():
            for sub in sorted(p.iterdir()):
                if sub.is_dir() and sub.name in folders:
                    yield from ((sub.name, f) for f in sorted(sub.glob("*.yaml")))
        elif p.is_file() and p.parent.name in folders:
            yield p.parent.name, p
        else:
            raise ConfigError(
                f"config: replay cassettes: {p}: not a cassette folder or a cassette in a folder "
                f"named for its vendor ({', '.join(folders)})"
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
            if not (ex.is_sse or ex.status >= 400):
                continue  # a whole-message answer: toolwire.arun always streams
            model = str(body.get("model") or f"{vendor}-recorded")
            turns.append(
                RecordedTurn(
                    vendor=vendor,
                    source=f"{f.parent.name}/{f.name}#{i}",
                    exchange=ex,
                    model=model,
                    recorded=_conversation(vendor, body),
                    restated=_restated(vendor, body),
                )
            )
    return turns


def _opening_prompt(turn: RecordedTurn) -> str | None:
    """The text of a recorded turn whose conversation is one user message, else None."""
    try:
        with held():
            decoded = adapters.get(turn.vendor).decode_request(turn.exchange.request_body)
    except ToolwireError:
        return None
    if len(decoded.messages) != 1 or decoded.messages[0].role != "user":
        return None
    content = decoded.messages[0].content
    if isinstance(content, str):
        return content.strip() or None
    texts = [p.text for p in content if isinstance(p, TextPart)]
    if len(texts) != len(content):
        return None  # media in the opening message: not something to offer as a button
    return "".join(texts).strip() or None


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


#: response headers of a recording that describe the recorded transfer, not the body served
_TRANSFER = frozenset({"content-length", "content-encoding", "transfer-encoding", "connection"})


class ReplayTransport(httpx2.AsyncBaseTransport):
    """Answers the vendor SDK's request with the recorded response, if it is the recorded one.

    The SDK's own request (its body as sent) is compared with the recording, as vcrpy
    compares a live request with a cassette; a request that differs gets a 400 in the
    vendor's error shape naming every difference, which the run reports as RUN_ERROR.
    """

    def __init__(self, turn: RecordedTurn) -> None:
        self.turn = turn

    def _difference(self, method: str, url: str, raw: bytes) -> str | None:
        try:
            live = _conversation(self.turn.vendor, json.loads(raw) if raw else None)
        except (ValueError, RecursionError):
            live = {}
        return self.turn.difference(method, url, live)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        raw = await request.aread()
        why = await OFFLOAD.run(self._difference, request.method, str(request.url), raw)
        if why is not None:
            error = {"type": "replay_mismatch", "message": f"{self.turn.source}: {why}"}
            return httpx2.Response(400, json={"type": "error", "error": error}, request=request)
        ex = self.turn.exchange
        headers = [(k, v) for k, vs in ex.headers.items() if k.lower() not in _TRANSFER for v in vs]
        return httpx2.Response(
            ex.status, headers=headers, content=ex.response_body, request=request
        )


def replay_client(turn: RecordedTurn) -> Any:
    """The vendor's own async SDK client, its HTTP served by a :class:`ReplayTransport`
    (``CLIENT.make_client`` with the recording's base URL: its URL less what the SDK
    appends, ``CLIENT.endpoint_suffix``)."""
    http = httpx2.AsyncClient(transport=ReplayTransport(turn))
    parts = urlsplit(turn.exchange.uri)
    origin = f"{parts.scheme or 'https'}://{parts.netloc or 'replay.invalid'}"
    path = parts.path
    sdk = adapters.client(turn.vendor)
    suffix = sdk.endpoint_suffix
    base = origin + (path[: -len(suffix)] if suffix and path.endswith(suffix) else "")
    return sdk.make_client(api_key="replay-needs-no-key", base_url=base, http_client=http)


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

    def warm(self) -> None:
        """Import each recorded vendor's SDK and the driver now, not on the first run (a
        vendor SDK takes seconds to import on a loaded machine: a UI would wait on it)."""
        from toolwire.driver import arun  # noqa: F401  (tenacity, the runner)

        first = {turn.vendor: turn for turn in reversed(self.turns)}
        for turn in first.values():
            replay_client(turn)  # built and dropped: its transport never opened a connection

    def secret_values(self) -> list[str]:
        return []  # it holds no key: every recording is answered offline

    async def aclose(self) -> None:
        """Nothing kept across runs: each run's SDK client closes with it."""

    def prompts(self) -> list[str]:
        """The recorded first prompts this agent answers: each recorded conversation's opening
        user message, offered only when sent alone it plays (a page cannot send a recorded
        system prompt), in file order, once each."""
        out: list[str] = []
        for turn in self.turns:
            text = _opening_prompt(turn)
            if text is None or text in out:
                continue
            probe = RunAgentInput(
                thread_id="prompts",
                run_id="prompts",
                protocol_version=PROTOCOL_VERSION,
                messages=[UserMessage(id="prompt", role="user", content=text)],
                tools=[],
                context=[],
                state=None,
                forwarded_props=None,
            )
            if self.match(probe)[0] is not None:
                out.append(text)
        return out

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
            why = turn.difference("POST", turn.exchange.uri, live)
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
        from toolwire.driver import RetryPolicy, arun

        turn, why = await OFFLOAD.run(self.match, run_input)  # seconds of CPU for a big input
        if turn is None:
            yield RunStartedEvent(
                thread_id=run_input.thread_id,
                run_id=run_input.run_id,
                protocol_version=PROTOCOL_VERSION,
                input=run_input,
            )
            yield RunErrorEvent(message=why, code="replay_no_match")
            return
        client = await OFFLOAD.in_thread(replay_client, turn)  # its CA bundle loads off the loop
        once = RetryPolicy(attempts=1)  # a recorded failure is the answer, not worth a retry
        try:
            run = await OFFLOAD.run(  # the request conversion happens as the run is made
                arun,
                client,
                run_input,
                model=turn.model,
                vendor=turn.vendor,
                retry=once,
                forward_losses=True,
            )
            async with run:
                async for event in run:
                    yield event
                    await asyncio.sleep(self.config.pace)  # 0 still lets a disconnect in
        finally:
            await adapters.client(turn.vendor).aclose(client)


__all__ = [
    "RecordedTurn",
    "ReplayProvider",
    "conversations",
    "default_cassettes",
    "index_recordings",
]
