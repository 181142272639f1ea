"""Writes the hand-built cassettes in ``cassettes/openai_responses/`` (run it by hand).

Each stream follows the Responses wire shape (``event:`` + ``data:`` per event,
LF line ends, a blank line after each event, ``sequence_number`` from 0) for
the cases the recorded corpus lacks. The tests parse every file with
``openai``'s own SDK, so a malformed one cannot sit there unnoticed.

    .venv/bin/python tests/vendor_openai_responses/_openai_responses_build_cassettes.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parents[2] / "cassettes" / "openai_responses"
URI = "https://api.openai.com/v1/responses"
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA"
    "60e6kgAAAABJRU5ErkJggg=="
)
PDF = (
    "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoK"
    "dHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0YK"
)


class _Literal(str):
    pass


def _literal(dumper: yaml.SafeDumper, value: _Literal) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style="|")


yaml.SafeDumper.add_representer(_Literal, _literal)


def response(rid: str, status: str, output: list[Any], **extra: Any) -> dict[str, Any]:
    body = {
        "id": rid,
        "object": "response",
        "created_at": 1764400000,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "model": "gpt-5-2025-08-07",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": None,
        "metadata": {},
    }
    body.update(extra)
    return body


class Stream:
    """Collects events with running sequence numbers."""

    def __init__(self, rid: str) -> None:
        self.rid = rid
        self.events: list[dict[str, Any]] = []
        self.output: dict[int, Any] = {}
        self.add("response.created", response=response(rid, "in_progress", []))
        self.add("response.in_progress", response=response(rid, "in_progress", []))

    def add(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, "sequence_number": len(self.events), **fields})

    def added(self, index: int, item: dict[str, Any]) -> None:
        self.add("response.output_item.added", output_index=index, item=item)

    def done(self, index: int, item: dict[str, Any]) -> None:
        self.output[index] = item
        self.add("response.output_item.done", output_index=index, item=item)

    def finish(self, kind: str = "completed", **extra: Any) -> None:
        output = [self.output[i] for i in sorted(self.output)]
        self.add(f"response.{kind}", response=response(self.rid, kind, output, **extra))

    def sse(self, cut: int | None = None) -> str:
        events = self.events if cut is None else self.events[:cut]
        return "".join(
            f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n" for e in events
        )


def usage(inp: int, out: int, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": out,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": inp + out,
    }


def interaction(request: dict[str, Any], body: str, ctype: str) -> dict[str, Any]:
    return {
        "request": {
            "method": "POST",
            "uri": URI,
            "body": json.dumps(request, separators=(",", ":")),
            "headers": {"content-type": ["application/json"]},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"content-type": [ctype]},
            "body": {"string": _Literal(body)},
        },
    }


def write(name: str, interactions: list[dict[str, Any]]) -> None:
    doc = {"version": 1, "interactions": interactions}
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1000)
    (OUT / name).write_text(text, encoding="utf-8")


def ask(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-5", "input": [{"role": "user", "content": text}], "stream": True, **extra}


WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "strict": False,
}


def fc(item_id: str, call_id: str, args: str, status: str = "completed") -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "function_call",
        "status": status,
        "arguments": args,
        "call_id": call_id,
        "name": "get_weather",
    }


def reasoning_parallel_calls() -> None:
    """Reasoning (two summary parts, encrypted content) + three interleaved parallel calls.

    One call's arguments are malformed JSON, one call's are empty.
    """
    s = Stream("resp_rpc_001")
    rs = {"id": "rs_001", "type": "reasoning", "summary": [], "encrypted_content": "gAAAApartial"}
    s.added(0, rs)
    parts = ["**Planning**\n\nThree cities, so three calls.", "Call them in parallel."]
    for n, text in enumerate(parts):
        where = {"item_id": "rs_001", "output_index": 0, "summary_index": n}
        s.add(
            "response.reasoning_summary_part.added",
            **where,
            part={"type": "summary_text", "text": ""},
        )
        half = len(text) // 2
        s.add("response.reasoning_summary_text.delta", **where, delta=text[:half])
        s.add("response.reasoning_summary_text.delta", **where, delta=text[half:])
        s.add("response.reasoning_summary_text.done", **where, text=text)
        s.add(
            "response.reasoning_summary_part.done",
            **where,
            part={"type": "summary_text", "text": text},
        )
    s.done(
        0,
        {
            **rs,
            "summary": [{"type": "summary_text", "text": t} for t in parts],
            "encrypted_content": "gAAAAfull-encrypted-reasoning==",
        },
    )
    calls = [
        ("fc_001", "call_P1", ['{"city":', '"Paris"}']),
        ("fc_002", "call_P2", ['{"city":"Tok', 'yo"']),  # malformed: never closed
        ("fc_003", "call_P3", []),  # empty arguments
    ]
    for n, (iid, cid, _) in enumerate(calls, start=1):
        s.added(n, fc(iid, cid, "", "in_progress"))
    order = [(1, 0), (2, 0), (1, 1), (2, 1)]
    for n, k in order:
        iid, _, deltas = calls[n - 1]
        s.add(
            "response.function_call_arguments.delta", item_id=iid, output_index=n, delta=deltas[k]
        )
    for n in (2, 1, 3):
        iid, cid, deltas = calls[n - 1]
        args = "".join(deltas)
        s.add("response.function_call_arguments.done", item_id=iid, output_index=n, arguments=args)
        s.done(n, fc(iid, cid, args))
    s.finish(usage=usage(120, 300, cached=64, reasoning=180))
    req = ask(
        "Weather in Paris, Tokyo and somewhere?",
        tools=[WEATHER],
        include=["reasoning.encrypted_content"],
        store=False,
    )
    write(
        "reasoning_parallel_calls.yaml",
        [interaction(req, s.sse(), "text/event-stream; charset=utf-8")],
    )


def web_search() -> None:
    """A built-in web search with sources, then a cited answer."""
    s = Stream("resp_ws_001")
    ws = {
        "id": "ws_001",
        "type": "web_search_call",
        "status": "in_progress",
        "action": {"type": "search", "query": "toolwire ag-ui"},
    }
    s.added(0, ws)
    for kind in ("in_progress", "searching", "completed"):
        s.add(f"response.web_search_call.{kind}", item_id="ws_001", output_index=0)
    sources = [
        {"type": "url", "url": "https://docs.ag-ui.com/"},
        {"type": "url", "url": "https://example.org/toolwire"},
    ]
    s.done(
        0,
        {
            **ws,
            "status": "completed",
            "action": {"type": "search", "query": "toolwire ag-ui", "sources": sources},
        },
    )
    text = "AG-UI is an event protocol (docs.ag-ui.com)."
    msg = {
        "id": "msg_ws_1",
        "type": "message",
        "status": "in_progress",
        "content": [],
        "role": "assistant",
    }
    s.added(1, msg)
    where = {"item_id": "msg_ws_1", "output_index": 1, "content_index": 0}
    s.add(
        "response.content_part.added",
        **where,
        part={"type": "output_text", "annotations": [], "logprobs": [], "text": ""},
    )
    s.add("response.output_text.delta", **where, delta=text[:20], logprobs=[])
    s.add("response.output_text.delta", **where, delta=text[20:], logprobs=[])
    note = {
        "type": "url_citation",
        "start_index": 23,
        "end_index": 43,
        "title": "AG-UI docs",
        "url": "https://docs.ag-ui.com/",
    }
    s.add("response.output_text.annotation.added", **where, annotation_index=0, annotation=note)
    s.add("response.output_text.done", **where, text=text, logprobs=[])
    part = {"type": "output_text", "annotations": [note], "logprobs": [], "text": text}
    s.add("response.content_part.done", **where, part=part)
    s.done(1, {**msg, "status": "completed", "content": [part]})
    s.finish(usage=usage(50, 40))
    req = ask(
        "What is AG-UI?", tools=[{"type": "web_search"}], include=["web_search_call.action.sources"]
    )
    write(
        "web_search_sources.yaml", [interaction(req, s.sse(), "text/event-stream; charset=utf-8")]
    )


def image_generation() -> None:
    """An image generation call whose result is a base64 PNG."""
    s = Stream("resp_img_001")
    ig = {"id": "ig_001", "type": "image_generation_call", "status": "in_progress", "result": None}
    s.added(0, ig)
    s.add("response.image_generation_call.in_progress", item_id="ig_001", output_index=0)
    s.add("response.image_generation_call.generating", item_id="ig_001", output_index=0)
    s.add(
        "response.image_generation_call.partial_image",
        item_id="ig_001",
        output_index=0,
        partial_image_b64=PNG,
        partial_image_index=0,
    )
    s.add("response.image_generation_call.completed", item_id="ig_001", output_index=0)
    s.done(
        0,
        {
            **ig,
            "status": "completed",
            "result": PNG,
            "output_format": "png",
            "size": "1024x1024",
            "quality": "low",
            "background": "opaque",
            "revised_prompt": "A single red pixel",
        },
    )
    s.finish(usage=usage(30, 10))
    req = ask("Draw a red pixel", tools=[{"type": "image_generation"}])
    write("image_generation.yaml", [interaction(req, s.sse(), "text/event-stream; charset=utf-8")])


def hosted_tools() -> None:
    """Code interpreter (logs, image), file search hits, MCP, a custom tool, computer use."""
    s = Stream("resp_host_001")
    ci = {
        "id": "ci_001",
        "type": "code_interpreter_call",
        "status": "in_progress",
        "code": "",
        "container_id": "cntr_001",
        "outputs": None,
    }
    s.added(0, ci)
    code = "print(6*7)"
    s.add("response.code_interpreter_call.in_progress", item_id="ci_001", output_index=0)
    s.add("response.code_interpreter_call_code.delta", item_id="ci_001", output_index=0, delta=code)
    s.add("response.code_interpreter_call_code.done", item_id="ci_001", output_index=0, code=code)
    s.add("response.code_interpreter_call.completed", item_id="ci_001", output_index=0)
    s.done(
        0,
        {
            **ci,
            "status": "completed",
            "code": code,
            "outputs": [
                {"type": "logs", "logs": "42\n"},
                {"type": "image", "url": f"data:image/png;base64,{PNG}"},
            ],
        },
    )
    fs = {
        "id": "fs_001",
        "type": "file_search_call",
        "status": "in_progress",
        "queries": ["refund policy"],
    }
    s.added(1, fs)
    s.add("response.file_search_call.searching", item_id="fs_001", output_index=1)
    s.done(
        1,
        {
            **fs,
            "status": "completed",
            "results": [
                {
                    "file_id": "file-abc",
                    "filename": "policy.pdf",
                    "score": 0.91,
                    "text": "Refunds within 30 days.",
                },
            ],
        },
    )
    mcp = {
        "id": "mcp_001",
        "type": "mcp_call",
        "status": "in_progress",
        "name": "lookup",
        "server_label": "crm",
        "arguments": "",
    }
    s.added(2, mcp)
    s.add("response.mcp_call_arguments.delta", item_id="mcp_001", output_index=2, delta='{"id":')
    s.add("response.mcp_call_arguments.delta", item_id="mcp_001", output_index=2, delta="7}")
    s.add(
        "response.mcp_call_arguments.done", item_id="mcp_001", output_index=2, arguments='{"id":7}'
    )
    s.add("response.mcp_call.completed", item_id="mcp_001", output_index=2)
    s.done(2, {**mcp, "status": "completed", "arguments": '{"id":7}', "output": "customer 7: Ada"})
    ct = {
        "id": "ctc_001",
        "type": "custom_tool_call",
        "call_id": "call_C1",
        "name": "run_sql",
        "input": "",
    }
    s.added(3, ct)
    s.add(
        "response.custom_tool_call_input.delta", item_id="ctc_001", output_index=3, delta="SELECT 1"
    )
    s.add("response.custom_tool_call_input.delta", item_id="ctc_001", output_index=3, delta=";")
    s.add(
        "response.custom_tool_call_input.done", item_id="ctc_001", output_index=3, input="SELECT 1;"
    )
    s.done(3, {**ct, "input": "SELECT 1;"})
    cu = {
        "id": "cu_001",
        "type": "computer_call",
        "call_id": "call_CU1",
        "status": "completed",
        "pending_safety_checks": [],
        "action": {"type": "screenshot"},
    }
    s.added(4, {**cu, "status": "in_progress"})
    s.done(4, cu)
    s.finish(usage=usage(400, 90))
    req = ask(
        "Do several things", tools=[{"type": "code_interpreter", "container": {"type": "auto"}}]
    )
    write("hosted_tools.yaml", [interaction(req, s.sse(), "text/event-stream; charset=utf-8")])


def _message_stream(rid: str, text: str) -> Stream:
    s = Stream(rid)
    msg = {
        "id": f"msg_{rid}",
        "type": "message",
        "status": "in_progress",
        "content": [],
        "role": "assistant",
    }
    s.added(0, msg)
    where = {"item_id": f"msg_{rid}", "output_index": 0, "content_index": 0}
    s.add(
        "response.content_part.added",
        **where,
        part={"type": "output_text", "annotations": [], "logprobs": [], "text": ""},
    )
    s.add("response.output_text.delta", **where, delta=text, logprobs=[])
    return s


def incomplete() -> None:
    """Output cut by ``max_output_tokens``: ``response.incomplete``."""
    s = _message_stream("resp_inc_001", "The answer is a long")
    s.finish("incomplete", incomplete_details={"reason": "max_output_tokens"}, usage=usage(20, 16))
    write(
        "incomplete.yaml",
        [
            interaction(
                ask("Say a lot", max_output_tokens=16), s.sse(), "text/event-stream; charset=utf-8"
            )
        ],
    )


def failures() -> None:
    """A truncated stream, an in-stream ``error`` event and ``response.failed``."""
    s = Stream("resp_trunc_001")
    s.added(0, fc("fc_t1", "call_T1", "", "in_progress"))
    s.add("response.function_call_arguments.delta", item_id="fc_t1", output_index=0, delta='{"ci')
    write("truncated.yaml", [interaction(ask("cut"), s.sse(), "text/event-stream; charset=utf-8")])
    e = _message_stream("resp_err_001", "Working")
    e.add(
        "error",
        code="server_error",
        message="The server had an error processing your request.",
        param=None,
    )
    write(
        "error_event.yaml", [interaction(ask("err"), e.sse(), "text/event-stream; charset=utf-8")]
    )
    f = _message_stream("resp_fail_001", "Work")
    f.add(
        "response.failed",
        response=response(
            "resp_fail_001",
            "failed",
            [],
            error={"code": "rate_limit_exceeded", "message": "Rate limit reached."},
        ),
    )
    write("failed.yaml", [interaction(ask("fail"), f.sse(), "text/event-stream; charset=utf-8")])


def tool_output_media() -> None:
    """A request answering a call with text, images and PDFs in every source kind."""
    req = {
        "model": "gpt-5",
        "input": [
            {"role": "user", "content": "Fetch the report."},
            {
                "type": "function_call",
                "id": "fc_m1",
                "call_id": "call_M1",
                "name": "get_report",
                "arguments": "{}",
            },
            {
                "type": "function_call_output",
                "call_id": "call_M1",
                "output": [
                    {"type": "input_text", "text": "Report attached."},
                    {
                        "type": "input_image",
                        "image_url": f"data:image/png;base64,{PNG}",
                        "detail": "auto",
                    },
                    {"type": "input_image", "image_url": "https://example.com/chart.png"},
                    {"type": "input_image", "file_id": "file-img123"},
                    {
                        "type": "input_file",
                        "filename": "report.pdf",
                        "file_data": f"data:application/pdf;base64,{PDF}",
                    },
                    {"type": "input_file", "file_url": "https://example.com/report.pdf"},
                    {"type": "input_file", "file_id": "file-pdf456"},
                ],
            },
        ],
        "tools": [
            {
                "type": "function",
                "name": "get_report",
                "description": "The report.",
                "parameters": {"type": "object", "properties": {}},
                "strict": True,
            }
        ],
    }
    out = {
        "id": "msg_m1",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [
            {
                "type": "output_text",
                "annotations": [],
                "logprobs": [],
                "text": "A one-page report with a chart.",
            }
        ],
    }
    body = json.dumps(response("resp_media_001", "completed", [out], usage=usage(900, 12)))
    write("tool_output_media.yaml", [interaction(req, body + "\n", "application/json")])


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    reasoning_parallel_calls()
    web_search()
    image_generation()
    hosted_tools()
    incomplete()
    failures()
    tool_output_media()
