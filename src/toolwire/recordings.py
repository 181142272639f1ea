"""Reading recorded vendor traffic: vcrpy cassettes, raw ``.sse`` captures, JSONL chunks.

Pure data in, data out (the caller reads the file). Handles plain vcrpy YAML,
gzip ``!!binary`` bodies and the pydantic-ai ``parsed_body`` variant (a JSON
body stored as a YAML mapping).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import BaseEvent

from toolwire.adapters.contract import Adapter
from toolwire.errors import LimitExceeded, UnsupportedInput
from toolwire.protocol.jsontext import decode_utf8, jsonl_lines, load_json
from toolwire.protocol.limits import check, limits
from toolwire.protocol.recorded import Exchange, ModelRoute
from toolwire.protocol.runs import VendorTurn, frame_run


def _as_bytes(value: Any) -> bytes:
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return json.dumps(value).encode("utf-8")


def _decompress(body: bytes, encoding: str) -> bytes:
    enc = encoding.lower()
    if "gzip" in enc or body[:2] == b"\x1f\x8b":
        return _inflate(body, 16 + zlib.MAX_WBITS)
    if "deflate" in enc:
        return _inflate(body, zlib.MAX_WBITS)
    if enc.strip() == "br":
        return _unbrotli(body)
    return body


def _unbrotli(body: bytes) -> bytes:
    """A brotli body stored still encoded (vcrpy without brotli installed), when brotli is here."""
    try:
        import brotli  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        return body
    try:
        out: bytes = brotli.decompress(body)
    except brotli.error:
        return body
    check("max_recording_bytes", len(out), "a compressed recorded body")
    return out


def _inflate(body: bytes, wbits: int) -> bytes:
    """Decompressed ``body``, never more than ``limits().max_recording_bytes`` (a small
    compressed body can expand without bound); the body as it is when it does not inflate."""
    cap = limits().max_recording_bytes
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(body, cap + 1)
    except zlib.error:
        return body
    check("max_recording_bytes", len(out), "a compressed recorded body")
    return out


def _header(headers: Any, name: str) -> str:
    if not isinstance(headers, dict):
        return ""
    for key, value in headers.items():
        if str(key).lower() == name:
            if isinstance(value, list):
                return str(value[0]) if value else ""
            return str(value)
    return ""


def _headers(headers: Any) -> dict[str, list[str]]:
    if not isinstance(headers, dict):
        return {}
    return {
        str(k): [str(x) for x in (v if isinstance(v, list) else [v])] for k, v in headers.items()
    }


def _request_body(req: dict[str, Any]) -> Any:
    if "parsed_body" in req:
        return req["parsed_body"]
    raw = req.get("body")
    if isinstance(raw, dict) and "string" in raw:
        raw = raw["string"]
    if raw is None:
        return None
    data = _decompress(_as_bytes(raw), _header(req.get("headers"), "content-encoding"))
    try:
        return load_json(data, "recording", "request body")
    except ValueError:
        return None


def cassette_exchanges(doc: Any) -> list[Exchange]:
    """The interactions of a parsed vcrpy cassette document, in file order."""
    if not isinstance(doc, dict) or not isinstance(doc.get("interactions"), list):
        raise UnsupportedInput("not a vcrpy cassette: no 'interactions' list")
    out: list[Exchange] = []
    for i, inter in enumerate(doc["interactions"]):
        if not isinstance(inter, dict):
            raise UnsupportedInput(f"interaction {i} is not a mapping")
        req = inter.get("request") or {}
        resp = inter.get("response") or {}
        for side, part in (("request", req), ("response", resp)):
            if not isinstance(part, dict):
                raise UnsupportedInput(f"interaction {i}: {side} is not a mapping")
        headers = resp.get("headers") or {}
        if "parsed_body" in resp:
            body = _as_bytes(json.dumps(resp["parsed_body"]))
            ctype = _header(headers, "content-type") or "application/json"
        else:
            raw = resp.get("body")
            if isinstance(raw, dict):
                raw = raw.get("string")
            body = _decompress(_as_bytes(raw), _header(headers, "content-encoding"))
            ctype = _header(headers, "content-type")
        status = resp.get("status", {})
        code = status.get("code", 200) if isinstance(status, dict) else 200
        if isinstance(code, str) and code.strip().isdigit():
            code = int(code)
        if not isinstance(code, int) or isinstance(code, bool):
            raise UnsupportedInput(f"interaction {i}: response.status.code is not a number")
        out.append(
            Exchange(
                response_body=body,
                content_type=ctype,
                status=code,
                method=str(req.get("method", "POST")),
                uri=str(req.get("uri", "")),
                request_body=_request_body(req),
                headers=_headers(headers),
            )
        )
    return out


def load_recording(data: bytes, name: str = "") -> list[Exchange]:
    """A recording file's exchanges: a cassette (YAML), an SSE capture, JSON or JSONL."""
    check("max_recording_bytes", len(data), name or "the recording")
    text = decode_utf8(data, "recording", name or "input") if data else ""
    stripped = text.lstrip()
    low = name.lower()
    if low.endswith((".yaml", ".yml")) or stripped.startswith(("interactions:", "version:")):
        return cassette_exchanges(load_yaml(text, name))
    if low.endswith(".sse") or stripped.startswith(("data:", "event:", ":")):
        return [Exchange(response_body=data, content_type="text/event-stream")]
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            whole = load_json(text, "recording", name or "input")
        except ValueError:
            whole = None
        if isinstance(whole, dict) and isinstance(whole.get("interactions"), list):
            return cassette_exchanges(whole)  # a vcrpy cassette saved with serializer="json"
        if whole is not None:
            return [Exchange(response_body=data, content_type="application/json")]
        # JSONL: one chunk per line -> one streamed exchange
        return [Exchange(response_body=data, content_type="application/jsonl")]
    raise UnsupportedInput(f"{name or 'input'}: not a cassette, an SSE capture, JSON or JSONL")


def jsonl_chunks(body: bytes) -> list[Any]:
    """Each non-empty line of a JSONL body, parsed."""
    out = []
    for n, line in enumerate(jsonl_lines(decode_utf8(body, "recording", "JSONL body")), 1):
        if line.strip():
            out.append(load_json(line, "recording", f"JSONL line {n}"))
    return out


def load_yaml(text: str, name: str = "") -> Any:
    """A cassette's YAML document, read safely: no ``!!python`` tags (PyYAML's safe loader),
    no alias to a node that contains it (a value that holds itself), and no more than
    ``limits().max_yaml_nodes`` nodes once aliases are expanded, so a few hundred bytes
    cannot grow to gigabytes ("billion laughs") in whatever walks the data later.
    ``yaml.safe_dump`` writes an alias for an object it meets twice, so aliases as such
    are allowed. Every error is an ``UnsupportedInput`` naming the file and line.

    The document is parsed by libyaml when PyYAML has it (``CSafeLoader``, several times
    faster than the pure-Python parser that is the fallback), and the bounds are checked on
    the composed node graph, before any value is built from it."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml ships with the dev extra
        raise UnsupportedInput("reading cassettes needs PyYAML (pip install pyyaml)") from None

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_yaml_graph(node, name)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        reason = " ".join(str(exc).split())
        raise UnsupportedInput(f"{name or 'input'}: not a readable cassette: {reason}") from None
    except RecursionError:
        raise UnsupportedInput(f"{name or 'input'}: YAML nested too deeply") from None
    finally:
        loader.dispose()


def _yaml_children(node: Any) -> list[Any]:
    value = node.value
    if isinstance(value, list):  # a sequence's items, or a mapping's (key, value) pairs
        return [n for item in value for n in (item if isinstance(item, tuple) else (item,))]
    return []  # a scalar


def _check_yaml_graph(root: Any, name: str) -> None:
    """The bounds of ``load_yaml`` on a composed document, without recursion (libyaml
    nests up to 1000 levels): an alias is the very node it names, so a node reached again
    while its own children are being walked refers to itself, and a node's size once
    aliases are expanded is 1 plus its children's, each counted once (linear in the nodes)."""
    cap = limits().max_yaml_nodes
    sizes: dict[int, int] = {}  # id(node) -> nodes once expanded, for each node walked
    walking: set[int] = set()  # the nodes from the root down to the one being walked
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            walking.discard(id(node))
            size = 1 + sum(sizes[id(c)] for c in _yaml_children(node))
            if size > cap:
                raise LimitExceeded("max_yaml_nodes", cap, name or "input")
            sizes[id(node)] = size
            continue
        if id(node) in sizes:
            continue
        walking.add(id(node))
        stack.append((node, True))
        for child in _yaml_children(node):
            if id(child) in walking:
                mark = child.start_mark
                raise UnsupportedInput(
                    f"{name or 'input'}: not a readable cassette: an alias refers to itself "
                    f"(the node at line {mark.line + 1}, column {mark.column + 1} holds an "
                    "alias of itself)"
                )
            if id(child) not in sizes:
                stack.append((child, False))


# ------------------------------------------------------------ model exchanges


@dataclass
class Selected:
    """A recording's model exchanges, and what was skipped (``method path`` each)."""

    exchanges: list[Exchange]
    skipped: list[str] = field(default_factory=list)
    total: int = 0

    def report(self) -> str | None:
        """One line saying how many interactions were skipped and what they were."""
        if not self.skipped:
            return None
        counts: dict[str, int] = {}
        for what in self.skipped:
            counts[what] = counts.get(what, 0) + 1
        shown = ", ".join(f"{n} x {what}" if n > 1 else what for what, n in counts.items())
        return (
            f"skipped {len(self.skipped)} of {self.total} recorded interactions that are not "
            f"model calls: {shown}"
        )


def select_model_exchanges(exchanges: Sequence[Exchange], route: ModelRoute) -> Selected:
    """The exchanges ``route`` admits, in order; the rest named in ``skipped``.

    A skipped interaction is never parsed, so a gzip, protobuf or HTML body there is
    no error. Only the method and path are reported (never a query string, which may
    hold a key).
    """
    kept: list[Exchange] = []
    skipped: list[str] = []
    for ex in exchanges:
        why = route.why_not(ex)
        if why is None:
            kept.append(ex)
        else:
            skipped.append(why)
    return Selected(kept, skipped, len(exchanges))


def recorded_model_calls(adapter: Adapter, data: bytes, name: str) -> Selected:
    """A file's recorded model calls, read the way ``adapter`` reads its recordings.

    An adapter may bring its own ``load_recording``; its ``MODEL_ROUTE`` picks the model
    calls, and what else the recording holds is named in ``skipped``.
    """
    loader = adapter.load_recording or load_recording
    exchanges: list[Exchange] = loader(data, name)
    return select_model_exchanges(exchanges, adapter.MODEL_ROUTE)


def model_exchanges(adapter: Adapter, data: bytes, name: str) -> list[Exchange]:
    """The recorded model turns of one file (other traffic skipped; see
    :func:`recorded_model_calls` for what was skipped)."""
    return recorded_model_calls(adapter, data, name).exchanges


def exchange_turn(adapter: Adapter, ex: Exchange, **turn_kw: Any) -> VendorTurn:
    """One recorded response as the vendor turn it was (``VendorTurn`` keywords pass through).

    A body that is no SSE may still be a stream (Gemini's JSON-array framing): an adapter
    says so with ``is_streamed``. The decoder is told what the recorded request implies
    (``decoder_options``: an OpenAI Chat request that asked for usage expects its chunk).
    """
    options = adapter.decoder_options
    decoder = adapter.Decoder(**(options(ex.request_body) if options is not None else {}))
    if ex.content_type == "application/jsonl":
        return VendorTurn(decoder, jsonl_chunks(ex.response_body), **turn_kw)
    streamed = adapter.is_streamed
    if ex.is_sse or (streamed is not None and streamed(ex)):
        return VendorTurn(decoder, adapter.FRAMING.read(ex.response_body), **turn_kw)
    return VendorTurn(decoder, whole_response=ex.response_json(), **turn_kw)


def frame_exchange(adapter: Adapter, ex: Exchange, **frame_kw: Any) -> Iterator[BaseEvent]:
    """One recorded response as one complete AG-UI run (``frame_run`` keywords pass through)."""
    turn = exchange_turn(adapter, ex)
    return frame_run(turn.decoder, turn.chunks, whole_response=turn.whole_response, **frame_kw)


__all__ = [
    "Exchange",
    "ModelRoute",
    "Selected",
    "cassette_exchanges",
    "exchange_turn",
    "frame_exchange",
    "jsonl_chunks",
    "load_recording",
    "load_yaml",
    "model_exchanges",
    "recorded_model_calls",
    "select_model_exchanges",
]
