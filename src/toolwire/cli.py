"""The ``toolwire`` command: a thin shell over the sans-I/O core.

Data goes to stdout, losses and warnings to stderr. Exit 0 on success, 1 on a
protocol violation or unreadable input (one line saying why), 2 on usage
errors: argparse's own, and an argument argparse takes but the command cannot
use (an unknown vendor or provider, a port out of range), reported the same way.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import io
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any, BinaryIO, TextIO, cast

from ag_ui.core import PROTOCOL_VERSION, BaseEvent, EventType, RunAgentInput

from toolwire import adapters
from toolwire.adapters.contract import Adapter, ResultPeer
from toolwire.errors import AdapterPluginError, ProtocolViolation, ToolwireError
from toolwire.losses import Loss, ToolwireWarning, announce, held, unseen
from toolwire.protocol.downgrade import downgrade_stream
from toolwire.protocol.ids import mint_id
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.jsontext import decode_utf8, dumps_safe, jsonl_lines, load_json
from toolwire.protocol.limits import limits
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.redact import redact
from toolwire.protocol.runs import VendorTurn, frame_runs
from toolwire.protocol.sse import encode_agui_event, event_json, parse_sse
from toolwire.recordings import Exchange, exchange_turn, recorded_model_calls


class CliError(Exception):
    """Unreadable input: reported on one line, exit status 1."""


class UsageError(Exception):
    """A command line the command cannot use: argparse's report, exit status 2."""


def _vendor_arg(name: str) -> str:
    """``--from`` / ``--to``: a stream adapter's name, a built-in or an installed plugin's
    (``openai-chat`` spells ``openai_chat`` too); anything else is a usage error saying why."""
    key = name.replace("-", "_").lower()
    if key in adapters.names():
        return key
    try:
        adapters.get(name)
    except AdapterPluginError:
        return key  # installed but broken: the command reports it (exit 1), not a usage error
    except ToolwireError as exc:  # unknown
        raise argparse.ArgumentTypeError(str(exc)) from None
    known = ", ".join(adapters.names())
    raise argparse.ArgumentTypeError(f"{name!r} has no stream to translate; known: {known}")


def _port_arg(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 0 to 65535, got {text!r}")
    return port


_PIECE = 1 << 20  # bytes read at a time


def _read(path: str) -> bytes:
    """The whole input, read in bounded pieces: past ``max_recording_bytes`` it stops with
    one clear line (endless input on stdin or a FIFO never grows memory unbounded)."""
    cap = limits().max_recording_bytes
    try:
        stream: BinaryIO = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from None
    pieces: list[bytes] = []
    size = 0
    try:
        while True:
            piece = stream.read(min(_PIECE, cap + 1 - size))
            if not piece:
                break
            pieces.append(piece)
            size += len(piece)
            if size > cap:
                where = "stdin" if path == "-" else path
                raise CliError(
                    f"{where}: the input is larger than {cap} bytes (the max_recording_bytes "
                    "cap); stopped reading there"
                )
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from None
    finally:
        if path != "-":
            stream.close()
    return b"".join(pieces)


def _json_text(data: bytes | str, path: str) -> Any:
    """The shared loader: UTF-8, bounded nesting, lone surrogates repaired with a warning."""
    return load_json(data, "input", path)


def _event_objects(data: bytes, path: str) -> Iterator[Any]:
    """AG-UI events from JSONL, a JSON array, or SSE bytes."""
    text = decode_utf8(data, "input", path)
    head = text.lstrip()
    if head.startswith(("data:", "event:", ":")):
        for i, ev in enumerate(parse_sse(text)):
            yield _json_text(ev.data, f"{path}: SSE event {i}: data")
        return
    if head.startswith("["):
        value = _json_text(text, path)
        if isinstance(value, list):
            yield from value
            return
    for n, line in enumerate(jsonl_lines(text), 1):
        if line.strip():
            yield _json_text(line, f"{path}: line {n}")


def _write_events(events: Iterable[BaseEvent], out: TextIO, *, sse: bool) -> None:
    for ev in events:
        if sse:
            out.write(encode_agui_event(ev))
        else:
            out.write(event_json(ev) + "\n")


def _adapter(name: str) -> Adapter:
    return adapters.get(name)


def _report(losses: list[Loss], announced: list[Loss]) -> None:
    """A translation's losses, read as values, warned once here (stderr, see ``main``);
    anything it only announced inside ``held`` is reported too."""
    announce([*losses, *unseen(announced, losses)])


# ------------------------------------------------------------------ commands


def cmd_validate(args: argparse.Namespace, out: TextIO) -> int:
    """A stream is valid when every rule holds and it holds AG-UI: an empty file, or one whose
    events are all of types AG-UI does not have (a vendor's SSE, say), is not a run at all.
    An unknown type among AG-UI events is dropped with a warning, as the protocol's processing
    model says (a newer peer's event), and counted in the summary."""
    data = _read(args.file)
    machine = StreamMachine(history=False)
    count = 0
    unknown: dict[str, int] = {}
    for obj in _event_objects(data, args.file):
        kind = obj.get("type") if isinstance(obj, dict) else None
        if isinstance(kind, str) and kind not in _AGUI_TYPES:
            unknown[kind] = unknown.get(kind, 0) + 1
        machine.feed(obj)
        count += 1
    if count == 0:
        raise CliError(f"{args.file}: no events: an empty stream is not an AG-UI run")
    if sum(unknown.values()) == count:
        kinds = ", ".join(list(unknown)[:5]) + (", …" if len(unknown) > 5 else "")
        raise CliError(
            f"{args.file}: not an AG-UI stream: none of its {count} events has an AG-UI type "
            f"(it has {kinds}); a vendor's stream is read with `toolwire decode --from VENDOR`"
        )
    machine.close()
    dropped = sum(unknown.values())
    note = f", {dropped} of an unknown type ignored" if dropped else ""
    out.write(f"valid: {count} events, {len(machine.runs)} run(s){note}\n")
    return 0


#: The event types AG-UI has: a stream with none of them is not AG-UI.
_AGUI_TYPES = frozenset(e.value for e in EventType)


def _exchanges(adapter: Adapter, data: bytes, name: str) -> list[Exchange]:
    """The recording's model exchanges (the adapter's ``MODEL_ROUTE``); the rest is
    skipped with one line on stderr, and a recording with none is an error."""
    selected = recorded_model_calls(adapter, data, name)
    report = selected.report()
    if not selected.exchanges and selected.total:
        raise CliError(f"{name}: no {adapter.MODEL_ROUTE.vendor} model call in it; {report}")
    if report:  # held with the warnings: on an error stderr holds the error line alone
        _held_warnings.append(f"toolwire: {_one_line(f'{name}: {report}')}\n")
    return selected.exchanges


def _run_input(adapter: Adapter, ex: Exchange, thread_id: str, run_id: str) -> RunAgentInput | None:
    """The recorded request as the run's input, when the adapter can read it: written by
    toolwire in this AG-UI version (content parts and all), so it says so (``_stated``)."""
    if not isinstance(ex.request_body, dict):
        return None
    try:
        with held():  # losses of the restated input are not losses of the decoded turn
            run_input: RunAgentInput = adapter.decode_request(ex.request_body)
    except ToolwireError:
        return None
    return _stated(run_input).model_copy(update={"thread_id": thread_id, "run_id": run_id})


def _stated(run_input: RunAgentInput) -> RunAgentInput:
    """An input toolwire restated from a vendor request, with the version it is written in.

    Without it, whoever reads the input back (``toolwire serve``, ``toolwire.run``) would
    take its writer for a peer from before content parts and flatten its tool results."""
    if run_input.protocol_version is not None:
        return run_input
    return run_input.model_copy(update={"protocol_version": PROTOCOL_VERSION})


def decode_runs(adapter: Adapter, data: bytes, name: str) -> Iterator[BaseEvent]:
    """Every vendor response in a recording as one complete AG-UI run, one thread.

    The run's input is the recorded request (when there is one), so a consumer
    sees what the model was asked as well as what it answered.
    """
    thread_id = mint_id("thread", hashlib.sha256(data).hexdigest())

    def turns() -> Iterator[VendorTurn]:
        for n, ex in enumerate(_exchanges(adapter, data, name)):
            run_id = mint_id("run", thread_id, n)
            run_input = _run_input(adapter, ex, thread_id, run_id)
            yield exchange_turn(adapter, ex, run_id=run_id, run_input=run_input)

    yield from frame_runs(turns(), thread_id=thread_id)


def cmd_decode(args: argparse.Namespace, out: TextIO) -> int:
    adapter = _adapter(args.vendor)
    events: Iterable[BaseEvent] = decode_runs(adapter, _read(args.file), args.file)
    if args.legacy:
        events = downgrade_stream(events)
    _write_events(events, out, sse=args.sse)
    return 0


def cmd_encode(args: argparse.Namespace, out: TextIO) -> int:
    adapter = _adapter(args.vendor)
    machine = StreamMachine(history=False)
    explicit: list[BaseEvent] = []
    for obj in _event_objects(_read(args.file), args.file):
        explicit.extend(machine.feed(obj))
    machine.close()  # a run cut before its terminal event is never encoded as success
    encoder = adapter.Encoder()
    with held() as quiet:
        chunks = [c for ev in explicit for c in encoder.feed(ev)]
        chunks.extend(encoder.close())
    _report(encoder.losses, quiet)
    body: bytes = adapter.FRAMING.write(chunks)
    # a binary framing (the AWS event stream) passes through the held text unchanged
    out.write(body.decode("utf-8", "surrogateescape"))
    return 0


def cmd_encode_request(args: argparse.Namespace, out: TextIO) -> int:
    """One request body per RunAgentInput: a JSON document, or JSONL as decode-request prints."""
    adapter = _adapter(args.vendor)
    kw: dict[str, Any] = {"media": args.media}
    if args.unanswered != "error" or args.unanswered_text is not None:
        if not _takes_unanswered(adapter):
            targets = [n for n in adapters.names() if _takes_unanswered(adapters.get(n))]
            raise UsageError(f"--unanswered is for {', '.join(targets)}")
        kw |= {"unanswered": args.unanswered, "unanswered_text": args.unanswered_text}
    data = _read(args.file)
    try:
        inputs = [_json_text(data, args.file)]
    except ValueError:
        inputs = list(_event_objects(data, args.file))  # JSONL, one input per line
    for n, obj in enumerate(inputs):
        where = args.file if len(inputs) == 1 else f"{args.file} line {n + 1}"
        run_input = as_run_input(obj, where)
        with held() as quiet:
            body = adapter.encode_request(run_input, model=args.model, **kw)
        _report(body.losses, quiet)
        out.write(dumps_safe(body, indent=None if len(inputs) > 1 else 2))
        out.write("\n")
    return 0


def _takes_unanswered(adapter: Adapter) -> bool:
    """Whether the adapter's ``encode_request`` takes ``unanswered`` (the model targets:
    the peers answer no calls), read from its signature."""
    return "unanswered" in inspect.signature(adapter.encode_request).parameters


def cmd_decode_request(args: argparse.Namespace, out: TextIO) -> int:
    adapter = _adapter(args.vendor)
    data = _read(args.file)
    text = decode_utf8(data, "input", args.file).lstrip()
    bodies: list[Any]
    if args.file.endswith((".yaml", ".yml")) or text.startswith(("interactions:", "version:")):
        bodies = [e.request_body for e in _exchanges(adapter, data, args.file)]
        bodies = [b for b in bodies if isinstance(b, dict)]
    else:
        bodies = [_json_text(data, args.file)]
    for body in bodies:
        run_input = _stated(adapter.decode_request(body))
        out.write(run_input.model_dump_json(by_alias=True) + "\n")
    return 0


def cmd_result(args: argparse.Namespace, out: TextIO) -> int:
    """A result peer's tool result JSON (MCP's CallToolResult) -> the AG-UI ToolMessage
    answering ``--tool-call-id`` (``<peer>-result``, one command per result peer)."""
    result = _json_text(_read(args.file), args.file)
    peer = cast(ResultPeer, adapters.get(args.peer))
    message = peer.decode_result(result, tool_call_id=args.tool_call_id, message_id=args.message_id)
    out.write(message.model_dump_json(by_alias=True, exclude_none=True) + "\n")
    return 0


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    """Serve until interrupted (toolwire.server needs the ``server`` extra).

    ``--provider NAME`` picks the config's agents named NAME or of provider NAME, and serves
    a provider no configured agent has with its defaults.
    """
    try:
        from toolwire.server import (
            AgentConfig,
            ServerConfig,
            create_app,
            load_config,
            serve,
            serve_workers,
        )
    except ImportError as exc:
        need = "serve needs the server extra (pip install 'toolwire[server]')"
        raise CliError(f"{need}: {exc}") from None
    from toolwire.server._config import checked

    config = load_config(args.config) if args.config else ServerConfig()
    if args.provider:
        agents: dict[str, AgentConfig] = {}
        for name in args.provider:
            mine = [a for a in config.agents if name in (a.name, a.provider)]
            if not mine:  # a provider served with its defaults: the name must be one
                try:
                    mine = list(checked(ServerConfig(agents=(AgentConfig(name, name),))).agents)
                except ToolwireError as exc:
                    raise UsageError(f"--provider {name}: {exc}") from None
            for agent in mine:
                agents.setdefault(agent.name, agent)
        config = replace(config, agents=tuple(agents.values()))
    if args.workers < 1:
        raise UsageError(f"--workers: expected at least 1, got {args.workers}")
    if args.workers > 1:
        serve_workers(config, args.host, args.port, args.workers)
    else:
        serve(create_app(config), args.host, args.port)
    return 0


# ---------------------------------------------------------------------- main


def _translation(
    sub: Any, name: str, summary: str, way: str, func: Any, file: str
) -> argparse.ArgumentParser:
    """A command over one adapter: ``--from VENDOR`` or ``--to VENDOR``, and its input file."""
    p: argparse.ArgumentParser = sub.add_parser(name, help=summary)
    vendors = ", ".join(adapters.NAMES) + ", or an installed adapter plugin's name"
    p.add_argument(
        way, dest="vendor", required=True, metavar="VENDOR", type=_vendor_arg, help=vendors
    )
    p.add_argument("file", help=file)
    p.set_defaults(func=func)
    return p


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="toolwire",
        description="Translate tool calls and tool results between AG-UI 1.0 and model vendors.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    v = sub.add_parser("validate", help="check an AG-UI event stream (JSONL or SSE)")
    v.add_argument("file", help="AG-UI events as JSONL, a JSON array or SSE ('-' for stdin)")
    v.set_defaults(func=cmd_validate)

    d = _translation(
        sub,
        "decode",
        "vendor recording -> AG-UI runs",
        "--from",
        cmd_decode,
        "a vcrpy cassette, a .sse capture, or JSONL of chunks",
    )
    d.add_argument("--sse", action="store_true", help="write AG-UI SSE instead of JSONL")
    d.add_argument(
        "--legacy", action="store_true", help="flatten results for a peer before content parts"
    )
    _translation(
        sub,
        "encode",
        "AG-UI events -> the vendor's SSE bytes",
        "--to",
        cmd_encode,
        "AG-UI events as JSONL, a JSON array or SSE",
    )
    er = _translation(
        sub,
        "encode-request",
        "RunAgentInput JSON -> vendor request body JSON",
        "--to",
        cmd_encode_request,
        "RunAgentInput JSON, or JSONL of them (one body per line out)",
    )
    er.add_argument("--model", required=True, help="the target model (decides what it takes)")
    er.add_argument(
        "--media",
        choices=("drop", "relocate"),
        default="drop",
        help="media a tool result cannot hold: drop it (default) or move it to a user message",
    )
    er.add_argument(
        "--unanswered",
        choices=("error", "drop", "answer"),
        default="error",
        help="a call with no result: refuse (default), drop it, or answer it as failed",
    )
    er.add_argument(
        "--unanswered-text",
        metavar="TEXT",
        help="the failure text --unanswered answer gives each such call (toolwire invents none)",
    )
    _translation(
        sub,
        "decode-request",
        "vendor request body JSON -> RunAgentInput JSON",
        "--from",
        cmd_decode_request,
        "a request body JSON, or a cassette (every request in it)",
    )
    for peer in adapters.RESULT_PEERS:  # built-in: no plugin is imported to build the parser
        title = peer.upper() if len(peer) <= 4 else peer
        mr = sub.add_parser(
            f"{peer.replace('_', '-')}-result",
            help=f"{title} tool result JSON -> AG-UI ToolMessage JSON",
        )
        mr.add_argument("--tool-call-id", required=True, help="the AG-UI tool call it answers")
        mr.add_argument(
            "--message-id", help="the tool message's id (default: minted from the call)"
        )
        mr.add_argument("file", help=f"a {title} tool result JSON ('-' for stdin)")
        mr.set_defaults(func=cmd_result, peer=peer)
    sv = sub.add_parser("serve", help="an AG-UI endpoint per provider, and the inspector page")
    sv.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="NAME",
        help="serve this provider as an agent (repeatable; default: replay)",
    )
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sv.add_argument("--port", type=_port_arg, default=8000, help="port (default 8000)")
    sv.add_argument("--config", metavar="FILE", help="agents and limits (TOML or JSON)")
    sv.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="worker processes behind the one port (default 1); each builds its own app",
    )
    sv.set_defaults(func=cmd_serve)
    return p


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    _held_warnings.append(f"warning: {_one_line(str(message))}\n")


_held_warnings: list[str] = []


def _one_line(text: str) -> str:
    """``text`` on one line, credentials masked: what the CLI prints on stderr."""
    return redact(" ".join(text.split()))


def _emit(text: str) -> None:
    raw = getattr(sys.stdout, "buffer", None)
    if raw is None:
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    raw.write(text.encode("utf-8", "surrogateescape"))  # (binary output comes back as bytes)
    raw.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Output is held until the command succeeded: on an error stdout
    stays empty and stderr holds exactly one line (no traceback, no earlier warnings)."""
    parser = build_parser()
    args = parser.parse_args(argv)  # a usage error exits 2 here, argparse's way
    try:
        return _main(args)
    except UsageError as exc:  # exits 2 like argparse's own usage errors, on one line
        parser.exit(2, _one_line(f"toolwire {args.command}: error: {exc}") + "\n")


def _main(args: argparse.Namespace) -> int:
    warnings.simplefilter("always", ToolwireWarning)
    previous = warnings.showwarning
    warnings.showwarning = _show_warning
    _held_warnings.clear()
    out = io.StringIO()
    try:
        code: int = args.func(args, out)
    except ProtocolViolation as exc:
        where = f" at event {exc.index}" if exc.index is not None else ""
        sys.stderr.write(_one_line(f"toolwire: violation {exc.code}{where}: {exc.reason}") + "\n")
        return 1
    except (ToolwireError, CliError) as exc:
        sys.stderr.write(_one_line(f"toolwire: {exc}") + "\n")
        return 1
    except RecursionError:
        sys.stderr.write("toolwire: the input is nested too deeply to process\n")
        return 1
    finally:
        warnings.showwarning = previous
    sys.stderr.write("".join(_held_warnings))
    _held_warnings.clear()
    try:
        _emit(out.getvalue())
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
