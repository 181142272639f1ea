"""The benchmark suite: every path, every vendor, the peers beside them, one table of ratios.

``./dev bench`` (or ``python -m benchmarks``) runs it and writes the table into
``docs/performance.md`` between its markers; ``--quick`` only checks that every benchmark still
runs (tiny streams, one repetition, no timing printed or written: for CI).

For each of the four model vendors and each stream shape (``tool``, ``text``, ``parallel``) at
two lengths, one group of cases runs interleaved (see :mod:`benchmarks.timing`):

* floors: ``json.loads`` of the vendor payloads; ``json.dumps`` of the AG-UI payloads out
* ``sdk``: the vendor SDK's own parse (real client, in-memory transport)
* toolwire over the SDK's objects: to AG-UI events; to AG-UI SSE bytes
* toolwire from the raw bytes: to AG-UI events; to AG-UI SSE bytes
* the encode direction: the AG-UI run -> vendor SSE bytes, against ``json.dumps`` of its payloads
* the peers on the same bytes, in their own environment: Pydantic AI's ``AGUIAdapter`` (SDK
  client over an in-memory transport) and LiteLLM (a loopback server), plus the loopback
  server read plainly, so the socket's share of LiteLLM's time is visible

Then ``encode_request`` of a 1,000-message history with media against ``json.dumps`` of its
output, and the peak traced memory of bytes -> AG-UI SSE at the two lengths.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import sys
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks import paths, timing
from benchmarks.history import history
from benchmarks.peers.runner import MODELS as PEER_MODELS
from benchmarks.peers.runner import PEERS
from benchmarks.served import NotMeasured, Served
from benchmarks.timing import Case, interleave, peak_bytes, timed
from toolwire import adapters
from toolwire.protocol._compact_json import compact
from toolwire.protocol.sse import encode_agui_event


def _bench_modules() -> tuple[dict[str, ModuleType], list[str]]:
    """Every model adapter of the registry (``toolwire.adapters.model_names()``, plugins
    included) that brings ``benchmarks/bench_<name>.py``; and those that do not yet.

    That module is the one extension point (docs/performance.md, "A new adapter's rows"):
    ``VENDOR``, ``MODEL``, ``build(shape, events) -> bytes`` (a stream of the recorded shape
    in the adapter's ``FRAMING``) and ``sdk_objects(body)`` (the vendor SDK's own parse);
    optionally ``extra_cases(body)``, ``REQUEST_MODEL`` (the model ``encode_request`` is
    given, when ``MODEL`` takes no images), ``floor_frames(chunks, write)`` (a framing whose
    writing is work of its own, such as the AWS event stream's CRCs: the chunks written
    with ``write`` and framed, for the encode floors), ``floor_read_frames(body)`` (the
    same framing read: its frames cut and checked as any reader must, their payloads
    parsed, for the read floor beside bytes -> events and bytes -> SSE), and
    ``ARGUMENTS_AS_OBJECTS = True`` when the vendor's stream carries a call's arguments as
    a JSON object (its encoder must parse their text, which the encode row's floor then
    counts). Every path, floor, peer
    row and the gateway take the vendor from here and read and write its streams through
    its ``FRAMING``.
    """
    found: dict[str, ModuleType] = {}
    missing: list[str] = []
    for name in adapters.model_names():
        try:
            found[name] = importlib.import_module(f"benchmarks.bench_{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"benchmarks.bench_{name}":
                raise
            missing.append(name)
    return found, missing


VENDORS, UNBENCHED = _bench_modules()
SHAPES = ("tool", "text", "parallel")
ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
#: benchmarks other modules add as ``benchmarks/<name>.py`` with a ``main()``; run when present
#: the vendors the peers' runner has a model for: the others are measured against their
#: floors and their SDK only (the peer cells stay empty)
PEER_VENDORS = tuple(PEER_MODELS)

EXTRAS = ("bench_run", "bench_bedrock", "bench_gateway")
#: the extras that take ``--vendor`` (the others are left out of a ``--vendor`` run, and
#: their figures in the page stay those of the last full run)
SCOPED = ("bench_gateway",)


@dataclass
class Group:
    """The interleaved cases of one vendor, shape and length."""

    vendor: str
    shape: str
    events: int
    cases: dict[str, Case] = field(default_factory=dict)
    #: what to release once the group has run (the served path's event loop)
    closers: list[Callable[[], None]] = field(default_factory=list)
    #: cases this vendor cannot run, and why (the page says so in their place)
    not_measured: dict[str, str] = field(default_factory=dict)

    def add(self, name: str, run: Callable[[], float | None], **kw: Any) -> None:
        self.cases[name] = Case(name, run, **kw)

    def t(self, name: str) -> float | None:
        case = self.cases.get(name)
        return case.median if case is not None else None

    def error(self, name: str) -> str | None:
        case = self.cases.get(name)
        return case.error if case is not None else f"{name} not run"


def _group(
    vendor: str,
    shape: str,
    events: int,
    peers: Any,
    tmp: Path,
    peer_reps: int,
    long: int,
    peer_shapes: Sequence[str],
) -> Group:
    bench = VENDORS[vendor]
    adapter = adapters.get(vendor)
    body = bench.build(shape, events)
    texts = paths.payloads(adapter, body)
    objects = bench.sdk_objects(body)
    run_events = list(paths.run(adapter, paths.read(adapter, body)))
    agui_out = paths.agui_payloads(run_events)
    vendor_out = paths.encoded_payloads(adapter, run_events)
    g = Group(vendor, shape, events)
    g.add("floor.loads", timed(lambda: paths.loads_all(texts)))
    g.add("floor.dumps", timed(lambda: paths.dumps_all(agui_out)))
    g.add("sdk", timed(lambda: bench.sdk_objects(body)))
    g.add("tw.sdk.events", timed(lambda: paths.events(adapter, objects)))
    g.add("tw.sdk.sse", timed(lambda: paths.sse(adapter, objects)))
    g.add("tw.bytes.events", timed(lambda: paths.events(adapter, paths.read(adapter, body))))
    g.add("tw.bytes.sse", timed(lambda: paths.sse(adapter, paths.read(adapter, body))))
    g.add("tw.encode", timed(lambda: paths.encode(adapter, run_events)))
    # a framing whose writing is work of its own (the AWS event stream's CRCs) is in the
    # encode floors beside the payloads' JSON (the bench module's ``floor_frames``)
    framed = getattr(bench, "floor_frames", None)
    if framed is None:
        g.add("floor.encode", timed(lambda: paths.dumps_all(vendor_out)))
        g.add("floor.compact", timed(lambda: paths.compact_all(vendor_out)))
    else:
        g.add("floor.encode", timed(lambda: len(framed(vendor_out, paths.dumps_one))))
        g.add("floor.compact", timed(lambda: len(framed(vendor_out, compact))))
    specs = paths.event_specs(run_events)
    # a framing whose reading is work of its own (the AWS event stream's CRCs) is in the
    # read floor beside the payloads' parse (the bench module's ``floor_read_frames``)
    framed_read = getattr(bench, "floor_read_frames", None)
    if framed_read is None:
        g.add("floor.read", timed(paths.floor_read(adapter, body, texts)))
    else:
        g.add("floor.read", timed(lambda: framed_read(body)))
    g.add("floor.build", timed(lambda: paths.build_events(specs)))
    g.add("floor.sequence", timed(lambda: paths.sequence_check(run_events)))
    g.add("floor.write", timed(lambda: paths.compact_all(agui_out)))
    if getattr(bench, "ARGUMENTS_AS_OBJECTS", False):
        # the vendor takes a call's arguments as an object: any encoder parses their text
        arg_texts = paths.argument_texts(run_events)
        g.add("floor.args", timed(lambda: paths.loads_all(arg_texts)))
    # the server's own streaming path (``toolwire serve``: the driver, then each event framed
    # and sent as it is ready), over the same bytes
    try:
        one_run = Served(vendor, body, adapter.FRAMING.media_type)
    except NotMeasured as why:
        g.not_measured["tw.served"] = str(why)  # said in the page, never a figure
    else:
        g.closers.append(one_run.close)
        g.add("tw.served", timed(one_run))
        if one_run.reads_sdk_objects():
            # every served run pays the SDK's parse: it is part of the served path's floor
            g.add("floor.client_sdk", timed(one_run.client_read))
    frames = [encode_agui_event(ev).encode() for ev in run_events]
    send = paths.send_each(frames)
    g.closers.append(send.close)
    g.add("floor.send", timed(send))
    for name, fn in getattr(bench, "extra_cases", lambda _: {})(body).items():
        g.add(f"extra.{name}", timed(fn))
    if peers is not None and vendor in PEER_VENDORS and (events < long or shape in peer_shapes):
        file = tmp / f"{vendor}-{shape}-{events}.body"
        file.write_bytes(body)
        media = adapter.FRAMING.media_type
        # the peers that read this vendor's bytes; the loopback read beside LiteLLM's
        mine = PEERS[vendor] + (("loopback",) if "litellm" in PEERS[vendor] else ())
        for peer in mine:
            # ``Peers`` warms each peer up itself (its process stays up): no warm-up round here,
            # and fewer repetitions (LiteLLM takes tens of seconds on a long stream)
            run = lambda p=peer: peers.time(p, vendor, file, media)  # noqa: E731
            g.add(f"peer.{peer}", run, limit=peer_reps, warm=False)
    return g


#: the request histories: media in every third message; an image in every tool result
HISTORIES = {"history": False, "media-heavy": True}


def _request_group(vendor: str, messages: int, calls: int = 1, shape: str = "history") -> Group:
    """``encode_request`` of a history and its floors; ``calls``: runs per repetition (a
    1,000-message body takes a few milliseconds)."""
    adapter = adapters.get(vendor)
    # a module may name another model for its requests (one that takes the history's images)
    model = getattr(VENDORS[vendor], "REQUEST_MODEL", VENDORS[vendor].MODEL)
    run_input = history(messages, media_heavy=HISTORIES[shape])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapter.encode_request(run_input, model=model, media="relocate")

    def encode() -> None:
        # the fitting losses are expected, and the same each time
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            adapter.encode_request(run_input, model=model, media="relocate")

    g = Group(vendor, shape, messages)
    g.add("tw.encode_request", timed(encode, calls))
    g.add("floor.request_dumps", timed(lambda: json.dumps(body), calls))
    # the body's values made once (json's C parser building the same dicts, lists, strings):
    # the least a builder of that body does, whatever reads its input
    text = json.dumps(body)
    g.add("floor.request_build", timed(lambda: json.loads(text), calls))
    return g


# -- the table --------------------------------------------------------------------------------


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}×" if a is not None and b else "—"


def _sum(*xs: float | None) -> float | None:
    return None if any(x is None for x in xs) else sum(x for x in xs if x is not None)


def _ms(x: float | None) -> str:
    return f"{x * 1e3:.1f}" if x is not None else "—"


def stream_rows(groups: Sequence[Group]) -> list[str]:
    head = (
        "| vendor | shape | events | SDK parse ms | on SDK → events, added | SDK → SSE, × SDK "
        "| bytes → events, × loads | bytes → SSE, × loads+dumps | encode → vendor SSE, × dumps "
        "| Pydantic AI, × tw SDK → SSE | Pydantic AI, × tw bytes → SSE "
        "| LiteLLM, × tw bytes → SSE (loopback share) |"
    )
    rows = [head, "|" + "---|" * 12]
    for g in groups:
        sdk = g.t("sdk")
        added = g.t("tw.sdk.events")
        over = f"+{added / sdk * 100:.0f}%" if added is not None and sdk else "—"
        sdk_sse = _sum(sdk, g.t("tw.sdk.sse"))
        lite, loop = g.t("peer.litellm"), g.t("peer.loopback")
        lite_s = _ratio(lite, g.t("tw.bytes.sse"))
        if lite is not None and loop is not None:
            lite_s += f" ({loop / lite * 100:.0f}%)"
        rows.append(
            f"| {g.vendor} | {g.shape} | {g.events} | {_ms(sdk)} | {over} "
            f"| {_ratio(sdk_sse, sdk)} "
            f"| {_ratio(g.t('tw.bytes.events'), g.t('floor.loads'))} "
            f"| {_ratio(g.t('tw.bytes.sse'), _sum(g.t('floor.loads'), g.t('floor.dumps')))} "
            f"| {_ratio(g.t('tw.encode'), g.t('floor.encode'))} "
            f"| {_ratio(g.t('peer.pydantic_ai'), sdk_sse)} "
            f"| {_ratio(g.t('peer.pydantic_ai'), g.t('tw.bytes.sse'))} | {lite_s} |"
        )
    return rows


#: the issue's targets: (what, bound, lower is better)
TARGETS = {
    "sdk_added": ("toolwire over the SDK's objects, added to the SDK's parse", 0.10, True),
    "sdk_sse": ("SDK → AG-UI SSE, × the SDK's parse", 1.3, True),
    "bytes_events": ("raw bytes → AG-UI events, × `json.loads`", 1.5, True),
    "bytes_sse": ("raw bytes → AG-UI SSE, × `json.loads` + `json.dumps`", 1.5, True),
    "encode": ("AG-UI run → vendor SSE, × `json.dumps`", 1.5, True),
    "pyd_sdk": ("Pydantic AI ÷ toolwire SDK → SSE", 8.0, False),
    "pyd_bytes": ("Pydantic AI ÷ toolwire bytes → SSE", 20.0, False),
    "litellm": ("LiteLLM ÷ toolwire bytes → SSE", 60.0, False),
    "request": ("`encode_request`, × `json.dumps` of its output", 2.0, True),
    "served_json": (
        "the server's streaming path (bytes → driver → an SSE frame per event), "
        "× `json.loads` + `json.dumps`",
        1.5,
        True,
    ),
    "served_sdk": ("the server's streaming path, × the SDK's parse", 1.3, True),
}


#: the targets set against a peer, and that peer
PEER_TARGETS = {"pyd_sdk": "pydantic_ai", "pyd_bytes": "pydantic_ai", "litellm": "litellm"}

#: the streams the issue's table measures its stream targets on (Anthropic's tool stream,
#: OpenAI Chat's); the other vendors' rows are shown beside them, marked as beyond it
ISSUE_VENDORS = ("anthropic", "openai_chat")


def _div(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _target_values(g: Group) -> dict[str, tuple[float | None, float | None]]:
    """Each target's measured value and the best any implementation could do beside it."""
    sdk, loads, dumps = g.t("sdk"), g.t("floor.loads"), g.t("floor.dumps")
    read, build, seq = g.t("floor.read"), g.t("floor.build"), g.t("floor.sequence")
    sdk_sse = _sum(sdk, g.t("tw.sdk.sse"))
    # read the bytes, make the events, check the run's sequence (an AG-UI SSE run toolwire
    # writes is a checked one, as every encoder's input is checked), write their payloads
    # (by a C encoder built once: ``json.dumps``, which the target is stated against,
    # builds one per call, and toolwire's own writer is cheaper than that)
    write = g.t("floor.write")
    least_sse = _sum(read, build, seq, write)
    least_sdk_sse = _sum(sdk, build, seq, write)
    pyd, lite = g.t("peer.pydantic_ai"), g.t("peer.litellm")
    # the server: what bytes -> SSE does at least, and one ``await send`` per event (a server
    # streaming each event as it is ready); where the driver reads the SDK's parsed objects
    # (no raw body from that SDK), the SDK's read through the adapter's CLIENT replaces the
    # bare read: every served run pays it
    client_sdk = g.t("floor.client_sdk")
    reading = _sum(client_sdk, build, seq, write) if client_sdk is not None else least_sse
    least_served = _sum(reading, g.t("floor.send"))
    return {
        "sdk_added": (_div(g.t("tw.sdk.events"), sdk), _div(build, sdk)),
        "sdk_sse": (_div(sdk_sse, sdk), _div(least_sdk_sse, sdk)),
        "bytes_events": (_div(g.t("tw.bytes.events"), loads), _div(_sum(read, build), loads)),
        "bytes_sse": (
            _div(g.t("tw.bytes.sse"), _sum(loads, dumps)),
            _div(least_sse, _sum(loads, dumps)),
        ),
        "encode": (
            _div(g.t("tw.encode"), g.t("floor.encode")),
            # the least: the payloads written by a C encoder built once (``json.dumps``
            # builds one per call), and the sequence check of the input
            _div(_sum(g.t("floor.compact"), seq, g.t("floor.args") or 0.0), g.t("floor.encode")),
        ),
        "served_json": (
            _div(g.t("tw.served"), _sum(loads, dumps)),
            _div(least_served, _sum(loads, dumps)),
        ),
        "served_sdk": (_div(g.t("tw.served"), sdk), _div(least_served, sdk)),
        # the peers: toolwire at its floor is the most the ratio can reach
        "pyd_sdk": (_div(pyd, sdk_sse), _div(pyd, least_sdk_sse)),
        "pyd_bytes": (_div(pyd, g.t("tw.bytes.sse")), _div(pyd, least_sse)),
        "litellm": (_div(lite, g.t("tw.bytes.sse")), _div(lite, least_sse)),
    }


def _verdict(key: str, measured: float | None, best: float | None) -> str:
    _, bound, lower = TARGETS[key]
    if measured is None:
        return "—"
    if (measured <= bound) if lower else (measured >= bound):
        return "met"
    if best is not None and not ((best <= bound) if lower else (best >= bound)):
        return "cannot: the floor misses it"  # the floor: see target_rows (rules included)
    return "not met"


def _fmt(key: str, x: float | None) -> str:
    if x is None:
        return "—"
    return f"+{x * 100:.0f}%" if key == "sdk_added" else f"{x:.2f}×"


def target_rows(groups: Sequence[Group], requests: Sequence[Group]) -> list[str]:
    """The issue's targets on the long ``tool`` streams (and the request history), each with
    the floor beside it: the same ratio for the least any implementation producing
    toolwire's output must do (read the bytes with a bare split + ``json.loads``, build the
    ``ag_ui.core`` events; for SSE out, also toolwire's sequence check of the run and
    ``json.dumps`` of the events; for the encoder, its payloads written by the stdlib's C
    encoder built once (``json.dumps`` builds one a call) and the sequence check of its
    input; for the peers, toolwire at that floor)."""
    rows = [
        "| target | bound | vendor | measured | floor beside | measured ÷ floor | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    longest = max((g.events for g in groups), default=0)
    picked = [g for g in groups if g.shape == "tool" and g.events == longest]
    picked.sort(key=lambda g: g.vendor not in ISSUE_VENDORS)  # the issue's two first
    for key, (what, bound, lower) in TARGETS.items():
        sign = "≤" if lower else "≥"
        shown = f"{sign} +{bound * 100:.0f}%" if key == "sdk_added" else f"{sign} {bound}×"
        if key == "request":
            for g in requests:
                measured = _div(g.t("tw.encode_request"), g.t("floor.request_dumps"))
                best = _div(
                    _sum(g.t("floor.request_dumps"), g.t("floor.request_build")),
                    g.t("floor.request_dumps"),
                )
                row = _target_row(key, what, shown, g.vendor, measured, best)
                rows.append(row.replace(f"| {g.vendor} |", f"| {g.vendor} ({g.shape}) |", 1))
            continue
        for g in picked:
            measured, best = _target_values(g)[key]
            if key.startswith("served") and "tw.served" in g.not_measured:
                why = g.not_measured["tw.served"]
                rows.append(f"| {what} | {shown} | {g.vendor} | — | — | — | not measured: {why} |")
                continue
            if key in PEER_TARGETS and PEER_TARGETS[key] not in PEERS.get(g.vendor, ()):
                # said, not left out: this peer does not read this vendor's bytes
                rows.append(
                    f"| {what} | {shown} | {g.vendor} | — | — | — | not measured: the peer "
                    "has no model for these bytes (`benchmarks/peers/runner.py`, `PEERS`) |"
                )
                continue
            if measured is not None:
                row = _target_row(key, what, shown, g.vendor, measured, best)
                if key.startswith("served") and g.t("floor.client_sdk") is not None:
                    row = (
                        row[: -len(" |")]
                        + " (its floor reads the SDK's objects, as its driver does) |"
                    )
                if g.vendor not in ISSUE_VENDORS:
                    row = row[: -len(" |")] + " (beyond the issue's table) |"
                rows.append(row)
    return rows


def _target_row(
    key: str, what: str, bound: str, vendor: str, measured: float | None, best: float | None
) -> str:
    over = f"{measured / best:.2f}" if measured is not None and best else "—"
    if key in PEER_TARGETS and measured is not None and best:
        over = f"{best / measured:.2f}"  # how far toolwire is from its floor, seen by the peer
    return (
        f"| {what} | {bound} | {vendor} | {_fmt(key, measured)} | {_fmt(key, best)} | {over} "
        f"| {_verdict(key, measured, best)} |"
    )


def served_rows(groups: Sequence[Group]) -> list[str]:
    """The server's own streaming path per group, beside the whole-run SSE path."""
    rows = [
        "| vendor | shape | events | served ms | µs/event in | × loads+dumps | × SDK parse "
        "| × tw bytes → SSE (whole run) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for g in groups:
        if "tw.served" in g.not_measured:
            why = g.not_measured["tw.served"]
            rows.append(f"| {g.vendor} | {g.shape} | {g.events} | not measured: {why} | | | | |")
            continue
        t = g.t("tw.served")
        per = f"{t / g.events * 1e6:.1f}" if t is not None else "—"
        rows.append(
            f"| {g.vendor} | {g.shape} | {g.events} | {_ms(t)} | {per} "
            f"| {_ratio(t, _sum(g.t('floor.loads'), g.t('floor.dumps')))} "
            f"| {_ratio(t, g.t('sdk'))} | {_ratio(t, g.t('tw.bytes.sse'))} |"
        )
    return rows


def growth_rows(groups: Sequence[Group]) -> list[str]:
    """Time per event at the long length over the short one (1.00 = linear)."""
    rows = [
        "| vendor | shape | bytes → SSE µs/event (short → long) | growth | SDK µs/event | growth |",
        "|---|---|---|---|---|---|",
    ]
    by: dict[tuple[str, str], list[Group]] = {}
    for g in groups:
        by.setdefault((g.vendor, g.shape), []).append(g)
    for (vendor, shape), gs in by.items():
        if len(gs) < 2:
            continue
        short, long = sorted(gs, key=lambda g: g.events)[:: len(gs) - 1]
        cells = []
        for name in ("tw.bytes.sse", "sdk"):
            a, b = short.t(name), long.t(name)
            if a is None or b is None:
                cells += ["—", "—"]
                continue
            pa, pb = a / short.events * 1e6, b / long.events * 1e6
            cells += [f"{pa:.1f} → {pb:.1f}", f"{pb / pa:.2f}"]
        rows.append(f"| {vendor} | {shape} | " + " | ".join(cells) + " |")
    return rows


def extra_rows(groups: Sequence[Group]) -> list[str]:
    """A vendor's own paths (``extra_cases``), each against the first of them."""
    rows = ["| vendor | shape | events | path | ms | × the first |", "|---|---|---|---|---|---|"]
    for g in groups:
        extra = [c for n, c in g.cases.items() if n.startswith("extra.")]
        for case in extra:
            name = case.name.removeprefix("extra.")
            ratio = _ratio(case.median, extra[0].median)
            rows.append(
                f"| {g.vendor} | {g.shape} | {g.events} | {name} | {_ms(case.median)} | {ratio} |"
            )
    return rows if len(rows) > 2 else []


def request_rows(groups: Sequence[Group]) -> list[str]:
    rows = [
        "| vendor | history | messages | encode_request ms | json.dumps of its output ms "
        "| ratio | floor beside |",
        "|---|---|---|---|---|---|---|",
    ]
    for g in groups:
        a, b = g.t("tw.encode_request"), g.t("floor.request_dumps")
        floor = _ratio(_sum(b, g.t("floor.request_build")), b)
        rows.append(
            f"| {g.vendor} | {g.shape} | {g.events} | {_ms(a)} | {_ms(b)} | {_ratio(a, b)} "
            f"| {floor} |"
        )
    return rows


def memory_rows(memory: Sequence[tuple[str, int, int, int]]) -> list[str]:
    rows = [
        "| vendor | events | peak traced memory, bytes → SSE (streamed) | argument text held |",
        "|---|---|---|---|",
    ]
    for vendor, events, peak, args in memory:
        rows.append(f"| {vendor} | {events} | {peak / 1e3:.0f} kB | {args / 1e3:.0f} kB |")
    return rows


def error_rows(groups: Sequence[Group]) -> list[str]:
    out = []
    for g in groups:
        for case in g.cases.values():
            if case.error is not None:
                out.append(f"- {g.vendor}/{g.shape}/{g.events} `{case.name}`: {case.error}")
    return out


def noise(groups: Sequence[Group]) -> str:
    spreads = sorted(s for g in groups for c in g.cases.values() if (s := c.spread) is not None)
    if not spreads:
        return "no repetitions"
    mid = spreads[len(spreads) // 2]
    return (
        f"spread of the repetitions, (max − min) / median per case: median {mid * 100:.0f}%, "
        f"worst {spreads[-1] * 100:.0f}%"
    )


def machine() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    la = f", load average {load[0]:.2f} at the start" if load else ""
    return (
        f"{platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs{la}; "
        f"Python {platform.python_version()} ({platform.python_implementation()})"
    )


def _argument_text(vendor: str, events: int) -> int:
    """The tool-call argument text the run carries (what a caller may need held)."""
    adapter = adapters.get(vendor)
    body = VENDORS[vendor].build("tool", events)
    size = 0
    for ev in paths.run(adapter, paths.read(adapter, body)):
        delta = getattr(ev, "delta", None)
        if type(ev).__name__ == "ToolCallArgsEvent" and isinstance(delta, str):
            size += len(delta.encode())
    return size


def report(
    groups: list[Group],
    requests: list[Group],
    memory: list[tuple[str, int, int, int]],
    header: str,
    reps: int,
    peer_reps: int,
    extras: list[str],
) -> str:
    lines = [
        header,
        "",
        f"Medians of {reps} interleaved repetitions after a warm-up round (the peers: "
        f"{peer_reps}, their process warmed up once). {noise(groups + requests)}.",
        "",
        *stream_rows(groups),
        "",
        'The issue\'s targets (the long `tool` streams; "floor beside": the same ratio for '
        "the least any implementation with toolwire's output must do, see `target_rows`):",
        "",
        *target_rows(groups, requests),
        "",
        "The server's own streaming path (`benchmarks/served.py`: `toolwire serve`'s vendor "
        "provider and its `EventStreamResponse`, the SDK's transport in memory, each event "
        "framed, masked and sent as it is ready):",
        "",
        *served_rows(groups),
        "",
        "Growth (per-event time at the long length over the short one; 1.00 is linear):",
        "",
        *growth_rows(groups),
        "",
        *(["Vendor-specific paths:", "", *extra_rows(groups), ""] if extra_rows(groups) else []),
        '`encode_request` of a 1,000-message history (`media="relocate"`): `history`, an image '
        "in every third message; `media-heavy`, an image in every tool result too (floor "
        "beside: `json.dumps` of the body plus its values made once, × `json.dumps`):",
        "",
        *request_rows(requests),
        "",
        "Peak traced memory (tracemalloc) of bytes → AG-UI SSE, the body fed in 64 KiB pieces "
        "and every frame handed on as it is made (the input body is the caller's, not counted):",
        "",
        *memory_rows(memory),
    ]
    if UNBENCHED:
        lines += [
            "",
            "Model adapters of the registry without `benchmarks/bench_<name>.py` (no rows "
            f"yet): {', '.join(UNBENCHED)}.",
        ]
    errors = error_rows(groups + requests)
    if errors:
        lines += ["", "Failed benchmarks:", "", *errors]
    for extra in extras:
        lines += ["", extra]
    return "\n".join(lines) + "\n"


def write_doc(text: str, doc: Path) -> None:
    """Put ``text`` between the markers of ``doc``, keeping everything around them."""
    old = doc.read_text() if doc.exists() else f"# Performance\n\n{BEGIN}\n{END}\n"
    if BEGIN not in old or END not in old:
        old = old.rstrip() + f"\n\n{BEGIN}\n{END}\n"
    before, rest = old.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    doc.write_text(f"{before}{BEGIN}\n{text}{END}{after}")


#: the marker of the paragraph a ``--vendor`` run adds beside the full run's header
SUBSET = "Rows of "
RUN_NOTE = "(a `--vendor` run; every other row is from the run above)"


def _segments(lines: list[str]) -> list[list[str]]:
    """``lines`` cut into runs of table lines (``|`` first) and runs of other lines."""
    out: list[list[str]] = []
    for line in lines:
        table = line.startswith("|")
        if out and out[-1][0].startswith("|") == table:
            out[-1].append(line)
        else:
            out.append([line])
    return out


def _row_vendor(row: str, column: int) -> str:
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    return cells[column].split(" ")[0] if column < len(cells) else ""


def _merge_table(old: list[str], new: list[str], vendors: set[str]) -> list[str]:
    """``old``'s rows of other vendors kept, ``new``'s rows put in: after the last row of
    their group (the first column) where the vendor is not the first column, else at the
    end."""
    head = [c.strip() for c in old[0].strip().strip("|").split("|")]
    column = head.index("vendor") if "vendor" in head else 0
    # a run replaces only what it measured: the groups (first column) it has rows in, where
    # the vendor is not the first column; the whole table's rows of its vendors otherwise
    groups = {r.split("|")[1] for r in new[2:]} if column > 0 else None
    rows = [
        r
        for r in old[2:]
        if _row_vendor(r, column) not in vendors
        or (groups is not None and r.split("|")[1] not in groups)
    ]
    if len(new) <= 2:
        return old
    for row in new[2:]:
        at = len(rows)
        if column > 0:
            group = _row_vendor(row, 0) and row.split("|")[1]
            same = [i for i, r in enumerate(rows) if r.split("|")[1] == group]
            at = same[-1] + 1 if same else at
        rows.insert(at, row)
    return old[:2] + rows


def merge_report(
    old: str, new: str, vendors: Sequence[str], extras: Sequence[str], part: str = ""
) -> str:
    """A ``--vendor`` run's report put into the full one: each of its table rows replaces
    that vendor's row (or joins the table), its header goes beside the full run's, its
    extras' output beside theirs, so a subset run never drops the other vendors' figures.
    ``old`` without tables (no full run yet) is replaced."""
    if "\n|" not in old:
        return new + "".join(f"\n{x}\n" for x in extras)
    chosen = set(vendors)
    named = ", ".join(vendors) + part  # ``part``: what of them was run, when not all
    label = f"{SUBSET}{named}"
    own = f"{SUBSET.lower()}{named}"
    new_lines = new.rstrip("\n").split("\n")
    tables = {seg[0]: seg for seg in _segments(new_lines) if seg[0].startswith("|")}
    # the new run's header and repetitions, as one paragraph beside the full run's
    header = " ".join(line for line in new_lines[:3] if line)
    note = f"{label} {RUN_NOTE}: {header}"
    out: list[str] = []
    placed: set[str] = set()
    for seg in _segments(old.rstrip("\n").split("\n")):
        if seg[0].startswith("|"):
            fresh = tables.get(seg[0])
            if fresh is not None:
                placed.add(seg[0])
                seg = _merge_table(seg, fresh, chosen)
            out += seg
            continue
        fences = -1  # >= 0: inside this subset's earlier extra output (its fences seen)
        for line in seg:
            # this subset's earlier paragraph and extras' output go (they come again)
            if line.startswith(f"{label} {RUN_NOTE}") or line.startswith("Model adapters of the"):
                continue
            if line.startswith("`benchmarks/") and line.endswith(f"({own}):"):
                fences = 0
            if fences < 0:
                out.append(line)
            elif line == "```":
                fences += 1
                fences = -1 if fences == 2 else fences
    # the subset's header after the full run's "Medians of ..." paragraph
    at = next((i + 1 for i, line in enumerate(out) if line.startswith("Medians of ")), 1)
    out[at:at] = ["", note]
    for seg in _segments(new_lines):
        if seg[0].startswith("|") and seg[0] not in placed:
            out += ["", "Only in the `--vendor` run:", "", *seg]
    tail = [line for line in new_lines if line.startswith("Model adapters of the registry")]
    out += ["", *tail] if tail else []
    failed = new.split("\nFailed benchmarks:\n", 1)
    if len(failed) == 2:
        out += ["", f"Failed benchmarks ({label}):", failed[1].split("\n\n`benchmarks/")[0]]
    for extra in extras:
        first, rest = extra.split("\n", 1)
        out += ["", f"{first[:-1]} ({own}):", rest]
    text = "\n".join(out)
    while "\n\n\n" in text:  # what a merge took out leaves no run of blank lines
        text = text.replace("\n\n\n", "\n\n")
    return text.strip("\n") + "\n"


def read_block(doc: Path) -> str:
    """The text between the markers of ``doc`` ("" when there is none)."""
    old = doc.read_text() if doc.exists() else ""
    if BEGIN not in old or END not in old:
        return ""
    return old.split(BEGIN, 1)[1].split(END, 1)[0].lstrip("\n")


def _extras(quick: bool, no_peers: bool = False, vendors: Sequence[str] | None = None) -> list[str]:
    """Run the benchmarks other modules contribute (``EXTRAS``), capturing what they print;
    for a ``--vendor`` run (``vendors``), only those that take ``--vendor`` (``SCOPED``),
    given the run's vendors."""
    import contextlib
    import io

    out = []
    for name in EXTRAS:
        if vendors is not None and name not in SCOPED:
            continue
        try:
            module = importlib.import_module(f"benchmarks.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"benchmarks.{name}":
                raise
            continue
        buf = io.StringIO()
        argv = sys.argv
        sys.argv = [name, *(["--quick"] if quick else [])]
        if no_peers and name == "bench_gateway":
            sys.argv.append("--no-peers")
        for vendor in vendors or ():
            sys.argv += ["--vendor", vendor]
        failed = ""
        try:
            with contextlib.redirect_stdout(buf):
                module.main()
        except (Exception, SystemExit) as exc:  # shown with the table, never hidden
            failed = f"\nFAILED: {type(exc).__name__}: {exc}"
        finally:
            sys.argv = argv
        text = buf.getvalue().rstrip() + failed
        out.append(f"`benchmarks/{name}.py`:\n\n```\n{text}\n```")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="check every benchmark runs; no timing")
    ap.add_argument("--vendor", action="append", choices=sorted(VENDORS), help="repeatable")
    ap.add_argument("--shape", action="append", choices=SHAPES, help="repeatable")
    ap.add_argument("--events", type=int, nargs=2, default=[2000, 20000], metavar=("SHORT", "LONG"))
    ap.add_argument("--reps", type=int, default=5, help="interleaved repetitions (default 5)")
    ap.add_argument("--peer-reps", type=int, default=3, help="repetitions of the peers (3)")
    ap.add_argument(
        "--peer-long",
        action="append",
        choices=SHAPES,
        help="shapes the peers also run at the long length (default: tool; LiteLLM takes "
        "tens of seconds of CPU per run there); at the short length they run every shape",
    )
    ap.add_argument("--no-peers", action="store_true", help="leave out Pydantic AI and LiteLLM")
    ap.add_argument(
        "--requests-only",
        action="store_true",
        help="only encode_request's histories (with --vendor: their rows merged, the rest kept)",
    )
    ap.add_argument("--out", type=Path, default=DOC, help="the page the table goes into")
    ap.add_argument(
        "--no-extras", action="store_true", help="leave out bench_run and bench_gateway"
    )
    args = ap.parse_args(argv)
    if args.requests_only:  # encode_request's groups alone: no peers, no extras
        args.no_peers = args.no_extras = True
    timing.COLLECT = not args.quick
    vendors = args.vendor or list(VENDORS)
    shapes = args.shape or list(SHAPES)
    lengths = [30, 90] if args.quick else sorted(args.events)
    reps = 1 if args.quick else args.reps
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = " ".join(["./dev bench", *(argv if argv is not None else sys.argv[1:])])
    header = f"Run {started} on {machine()}. Command: `{command}`."
    if not args.no_peers:
        shown = ", ".join(args.peer_long or ["tool"])
        header += (
            f" The peers run every shape at {min(lengths)} events and the {shown} shape at "
            f"{max(lengths)}."
        )
    peers = None
    if not args.no_peers:
        from benchmarks.peers import Peers

        peers = Peers()
    groups: list[Group] = []
    requests: list[Group] = []
    memory: list[tuple[str, int, int, int]] = []
    # the benchmarks other modules contribute run first (the gateway's servers start and
    # stop on their own), so a long run cut short still keeps them in its partial table
    # a run of some vendors puts its rows into the page's tables (merge_report); a run of
    # every vendor writes the whole block
    subset = list(dict.fromkeys(args.vendor)) if args.vendor else None
    if subset is not None and set(subset) == set(VENDORS):
        subset = None
    base = read_block(args.out) if subset is not None and not args.quick else ""

    def page(text: str) -> str:
        part = " (`encode_request` only)" if args.requests_only else ""
        return text if subset is None else merge_report(base, text, subset, extras, part)

    extras = [] if args.no_extras else _extras(args.quick, args.no_peers, subset)
    try:
        with tempfile.TemporaryDirectory(prefix="toolwire-bench-") as tmp:
            total = len(vendors) * len(shapes) * len(lengths)
            for vendor in vendors:
                for shape in HISTORIES:
                    size = (60, 1) if args.quick else (1000, 10)
                    rg = _request_group(vendor, *size, shape=shape)
                    interleave(list(rg.cases.values()), reps, warmup=not args.quick)
                    requests.append(rg)
                if args.requests_only:
                    continue
                for events in lengths:
                    adapter = adapters.get(vendor)
                    body = VENDORS[vendor].build("tool", events)
                    top = peak_bytes(lambda a=adapter, b=body: paths.sse_streamed(a, b))
                    memory.append((vendor, events, top, _argument_text(vendor, events)))
                for shape in shapes:
                    for events in lengths:
                        g = _group(
                            vendor, shape, events, peers, Path(tmp), args.peer_reps,
                            max(lengths), args.peer_long or ["tool"],
                        )  # fmt: skip
                        print(f"{vendor} {shape} {events}", file=sys.stderr, flush=True)
                        try:
                            interleave(list(g.cases.values()), reps, warmup=not args.quick)
                        finally:
                            for close in g.closers:
                                close()
                        groups.append(g)
                        if not args.quick and len(groups) < total:
                            # a long run on a shared machine: keep what is measured so far
                            note = f"(Partial: {len(groups)} of {total} stream groups so far.)"
                            partial = report(
                                groups, requests, memory, f"{header} {note}", reps,
                                args.peer_reps, [] if subset else extras,
                            )  # fmt: skip
                            write_doc(page(partial), args.out)
    finally:
        if peers is not None:
            peers.close()
    failed = error_rows(groups + requests)
    failed += [
        f"- {text.splitlines()[0]} {text.splitlines()[-2]}"
        for text in extras
        if "\nFAILED: " in text
    ]
    if args.quick:
        count = sum(len(g.cases) for g in groups + requests)
        # the tables are built too (and dropped: quick timings mean nothing), so a change
        # that breaks the report fails here, not in the next full run
        report(groups, requests, memory, header, reps, args.peer_reps, extras)
        for line in failed:
            print(line)
        print(f"quick: {count} benchmarks ran, {len(failed)} failed; {len(extras)} extra")
        return 1 if failed else 0
    text = report(groups, requests, memory, header, reps, args.peer_reps, [] if subset else extras)
    print(text)
    write_doc(page(text), args.out)
    print(f"written to {args.out}", file=sys.stderr)
    return 1 if failed else 0
