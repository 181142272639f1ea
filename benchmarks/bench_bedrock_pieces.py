"""Bedrock's event stream as the driver reads it: the body in 64 KiB pieces (a socket's
reads) through the push reader, each piece's events checked by a run framer, against the
way before the push reader was fused (the reader's chunk dicts, each fed to the framer, a
step per chunk). Bedrock's served path is measured only in the gateway (botocore takes no
in-memory transport), so this reads the driver's part directly.

Cases (interleaved, CPU time, medians): ``loads``, each chunk's ``json.loads``
(``paths.loads_all``: the suite's unit); ``dicts``, ``FRAMING.reader()``'s chunks, each
``RunFramer.feed`` (what the driver did with the dicts Bedrock's client yielded);
``pieces``, the same reader in ``protocol.pushed``'s pieces read by ``PushReading.gather``
into ``RunFramer.feed_events`` (the driver's step for a piece, ``PIECE_EVENTS`` at a
time), the reader fused with the decoder's form from the first piece (what the client
makes: its payloads reader, a delta that begins as the last one did read from there);
``matched``, the same with each delta frame's payload matched whole by the form's
expression (``FramePushReader.feed_fused``: the driver's reading before Next 40). Run:
``python -m benchmarks.bench_bedrock_pieces [--events N] [--reps N]``.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks import bench_bedrock, paths

PIECE = 65536
#: the driver's bound on a step's events (``driver._runner.PIECE_EVENTS``)
MOST = 256


def _framer() -> object:
    from toolwire.adapters import bedrock
    from toolwire.protocol.runs import RunFramer

    framer = RunFramer(bedrock.Decoder(), thread_id="t-bench", run_id="r-bench")
    framer.start()
    return framer


def dicts(body: bytes) -> int:
    """The reader's chunk dicts, each fed to the framer (a step per chunk)."""
    from toolwire.adapters import bedrock

    framer = _framer()
    feed = framer.feed  # type: ignore[attr-defined]
    reader = bedrock.FRAMING.reader()
    n = 0
    for at in range(0, len(body), PIECE):
        for chunk in reader.feed(body[at : at + PIECE]):
            n += len(feed(chunk))
    reader.close()
    n += len(framer.feed_events(framer.decoder.close()))  # type: ignore[attr-defined]
    return n


def _matched_reader(inner: Any, form: Any) -> Any:
    """A piece reader whose fused feed matches each delta payload whole (a frame a match)."""
    from toolwire.protocol.pushed import PieceReader

    reader = PieceReader(inner, form)
    fast = form.payload
    reader._fused = lambda piece: inner.feed_fused(piece, fast)
    return reader


def pieces(body: bytes, matched: bool = False, checked: bool = False) -> int:
    """The reader's pieces, each read by ``PushReading.gather`` into the framer
    (``matched``: each delta frame a match of the form's expression; ``checked``: by
    ``gather_checked`` through the machine's lazy check, the driver's step for a current
    client)."""
    from toolwire.adapters import bedrock
    from toolwire.protocol.pushed import PieceReader, PushReading

    framer = _framer()
    sink = framer.feed_events  # type: ignore[attr-defined]
    decoder = framer.decoder  # type: ignore[attr-defined]
    reading = PushReading(decoder)
    check = framer.machine.checked  # type: ignore[attr-defined]
    make = _matched_reader if matched else PieceReader
    reader = make(bedrock.FRAMING.reader(), reading.form)
    n = 0
    failed: list[Exception] = []
    for at in range(0, len(body), PIECE):
        for piece in reader.feed(body[at : at + PIECE]):
            while piece.left:
                if checked:
                    out = reading.gather_checked(piece, check, MOST, failed)
                    framer.turn_events += len(out)  # type: ignore[attr-defined]
                    n += len(out)
                else:
                    n += len(reading.gather(piece, sink, MOST, failed))
                if failed:
                    raise failed[0]
    reader.close()
    n += len(sink(decoder.close()))
    return n


def _median(fn: Callable[[], object], times: list[float]) -> None:
    gc.collect()
    t0 = time.process_time()
    fn()
    times.append(time.process_time() - t0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--shape", default="tool", choices=bench_bedrock.SHAPES)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    body = bench_bedrock.build(args.shape, args.events)
    from toolwire.adapters import bedrock

    texts = paths.payloads(bedrock, body)
    counts = {pieces(body, matched, checked) for matched in (False, True) for checked in (0, 1)}
    if counts != {dicts(body)}:
        raise AssertionError("the readings give a different number of events")
    cases: dict[str, Callable[[], object]] = {
        "loads": lambda: paths.loads_all(texts),
        "dicts": lambda: dicts(body),
        "pieces": lambda: pieces(body),
        "matched": lambda: pieces(body, matched=True),
        "pieces checked": lambda: pieces(body, checked=True),
        "matched checked": lambda: pieces(body, matched=True, checked=True),
    }
    times: dict[str, list[float]] = {k: [] for k in cases}
    for fn in cases.values():  # warm-up
        fn()
    for _ in range(args.reps):
        for name, fn in cases.items():
            _median(fn, times[name])
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"bedrock {args.shape}, {args.events} events, {len(body)} bytes in {PIECE} B pieces")
    for name, t in med.items():
        print(f"{name:16} {t * 1e3:8.1f} ms  {t / med['loads']:5.2f}x loads")
    print(f"pieces / dicts: {med['pieces'] / med['dicts']:.2f}")
    print(f"pieces / matched: {med['pieces'] / med['matched']:.2f}")
    print(f"checked: pieces / matched: {med['pieces checked'] / med['matched checked']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
