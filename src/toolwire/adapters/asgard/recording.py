"""Splitting an Asgard capture into one exchange per run.

A consent reply opens a new run, so a capture of one conversation may hold
several ``run.init`` ... ``run.done`` sequences in one SSE body; the CLI
decodes each exchange as one run.
"""

from __future__ import annotations

from toolwire.protocol.sse import frame_sse
from toolwire.recordings import Exchange
from toolwire.recordings import load_recording as _load

from .wire import MODEL_ROUTE, RUN_INIT, VENDOR, sse_chunks


def load_recording(data: bytes, name: str = "") -> list[Exchange]:
    """The shared reader, then each SSE body cut before every ``asgard.run.init`` but the first."""
    out: list[Exchange] = []
    for ex in _load(data, name):
        if not MODEL_ROUTE.admits(ex) or not ex.is_sse or ex.content_type == "application/jsonl":
            out.append(ex)  # other traffic is passed on untouched (the caller skips it)
            continue
        runs: list[list[dict[str, object]]] = []
        for frame in sse_chunks(ex.response_body):
            if frame.get("eventType") == RUN_INIT or not runs:
                runs.append([])
            runs[-1].append(frame)
        if len(runs) <= 1:
            out.append(ex)
            continue
        for frames in runs:
            out.append(
                Exchange(
                    response_body=frame_sse(frames, vendor=VENDOR),
                    content_type="text/event-stream",
                    status=ex.status,
                    method=ex.method,
                    uri=ex.uri,
                    request_body=ex.request_body,
                    headers=ex.headers,
                )
            )
    return out


__all__ = ["load_recording"]
