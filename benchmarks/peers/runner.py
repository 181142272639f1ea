"""The peers' side of the benchmark: runs inside ``benchmarks/peers/.venv``, never in toolwire's.

Started by ``benchmarks.peers.client`` as a subprocess. It reads one JSON request per line on
stdin (``{"peer": ..., "vendor": ..., "file": ..., "media_type": ...}``), runs that peer once
over the bytes in ``file`` and answers one JSON line on stdout (``{"seconds": s, "out": n}`` or
``{"error": "..."}``), so the suite can interleave the peers' repetitions with its own. It ends
at end of input. Only the standard library, Pydantic AI and LiteLLM are imported here.

* ``pydantic_ai``: Pydantic AI's ``AGUIAdapter`` over an agent whose model is the vendor's
  Pydantic AI model, its SDK client reading the bytes from an in-memory transport; the run's
  AG-UI SSE text is produced in full (the tools are frontend tools, so the run ends at the calls).
* ``litellm``: LiteLLM's streaming call for the vendor against a loopback HTTP server on
  127.0.0.1 that serves the bytes (LiteLLM builds its own HTTP clients), every chunk consumed.
* ``loopback``: the same server read with a plain ``httpx`` stream: what the socket costs.

``PEERS`` says which peers read which vendor's bytes: not every peer has a model for every
vendor's own wire (Pydantic AI speaks Ollama only through its OpenAI-compatible endpoint;
LiteLLM's Cohere v2 stream reader fails on Cohere's ``event:`` lines), and a peer that cannot
read the same bytes gets no row rather than a figure over other bytes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

warnings.simplefilter("ignore")
# LiteLLM fetches a model price list from the internet at import unless told to use its own copy
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ.setdefault("LITELLM_TELEMETRY", "False")

MODELS = {
    "anthropic": "claude-sonnet-4-6",
    "openai_chat": "gpt-4o",
    "openai_responses": "gpt-5",
    "gemini": "gemini-3-pro-preview",
    "mistral": "mistral-large-latest",
    "cohere": "command-a-03-2025",
    "ollama": "qwen3:8b",
}
#: the peers that read each vendor's own bytes (LiteLLM's ``prefix/`` route for it); Pydantic
#: AI has no Ollama model of its own (its Ollama provider speaks Ollama's OpenAI-compatible
#: ``/v1`` endpoint: other bytes than ``/api/chat``'s NDJSON, which toolwire's adapter reads)
PEERS = {vendor: ("pydantic_ai", "litellm") for vendor in MODELS}
PEERS["ollama"] = ("litellm",)
#: LiteLLM 1.110's Cohere v2 stream reader parses every line as JSON and fails on the
#: ``event:`` line each Cohere v2 SSE event starts with (MidStreamFallbackError)
PEERS["cohere"] = ("pydantic_ai",)
LITELLM_PREFIX = {
    "anthropic": "anthropic",
    "openai_chat": "openai",
    "gemini": "gemini",
    "mistral": "mistral",
    "cohere": "cohere_chat",
    "ollama": "ollama_chat",
}
TOOLS = ("get_weather", "get_time", "search_docs")
#: the server stops after this many requests even if nobody ends the runner
MAX_REQUESTS = 10_000

_body = b""
_media_type = "text/event-stream"
#: Ollama's ``/api/show`` answer, cut to what LiteLLM reads (the template names tools)
_SHOW = json.dumps(
    {"template": "{{ if .Tools }}{{ .Tools }}{{ end }}", "model_info": {"context_length": 40960}}
).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        # LiteLLM asks an Ollama server for the model's details once a call (``/api/show``):
        # answered small, as Ollama answers it, not with the turn's body
        body = _SHOW if self.path.endswith("/api/show") else _body
        self.send_response(200)
        self.send_header("content-type", "application/json" if body is _SHOW else _media_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.served = 0

    def process_request(self, request: Any, client_address: Any) -> None:
        self.served += 1
        if self.served > MAX_REQUESTS:
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)


def _mock_client(body: bytes) -> Any:
    import httpx2

    async def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))


def _model(vendor: str, body: bytes) -> Any:
    http = _mock_client(body)
    name = MODELS[vendor]
    if vendor == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        return AnthropicModel(name, provider=AnthropicProvider(api_key="x", http_client=http))
    if vendor in ("openai_chat", "openai_responses"):
        from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        cls = OpenAIChatModel if vendor == "openai_chat" else OpenAIResponsesModel
        return cls(name, provider=OpenAIProvider(api_key="x", http_client=http))
    if vendor == "gemini":
        from pydantic_ai.models.google import GoogleModel
        from pydantic_ai.providers.google import GoogleProvider

        return GoogleModel(name, provider=GoogleProvider(api_key="x", http_client=http))
    if vendor == "mistral":
        from pydantic_ai.models.mistral import MistralModel
        from pydantic_ai.providers.mistral import MistralProvider

        return MistralModel(name, provider=MistralProvider(api_key="x", http_client=http))
    if vendor == "cohere":
        import httpx
        from pydantic_ai.models.cohere import CohereModel
        from pydantic_ai.providers.cohere import CohereProvider

        # the cohere SDK takes httpx's own client (not httpx2's)
        async def handler(request: Any) -> Any:
            return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

        legacy = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        return CohereModel(name, provider=CohereProvider(api_key="x", http_client=legacy))
    raise ValueError(f"no Pydantic AI model for {vendor!r}")


def _run_input() -> Any:
    from ag_ui.core import RunAgentInput, Tool, UserMessage

    schema = {"type": "object", "additionalProperties": True}
    return RunAgentInput(
        thread_id="t-bench",
        run_id="r-bench",
        messages=[UserMessage(id="u1", content="hi")],
        tools=[Tool(name=n, description=n, parameters=schema) for n in TOOLS],
        context=[],
        state=None,
        forwarded_props=None,
    )


async def _pydantic_ai(vendor: str, body: bytes) -> int:
    from pydantic_ai import Agent
    from pydantic_ai.ui.ag_ui import AGUIAdapter

    agent: Any = Agent(_model(vendor, body))
    adapter: Any = AGUIAdapter(agent=agent, run_input=_run_input())
    size = 0
    async for text in adapter.encode_stream(adapter.run_stream()):
        size += len(text)
    return size


def _litellm(vendor: str, url: str) -> int:
    import litellm

    messages = [{"role": "user", "content": "hi"}]
    common: dict[str, Any] = {"api_key": "x", "stream": True}
    count = 0
    if vendor == "openai_responses":
        stream: Any = litellm.responses(
            model=f"openai/{MODELS[vendor]}", input="hi", api_base=f"{url}/v1", **common
        )
    else:
        prefix = LITELLM_PREFIX[vendor]
        # the path each route appends to its base: OpenAI's /chat/completions after /v1;
        # Cohere's v2 route takes the whole URL; the others add their own
        base = {"openai_chat": f"{url}/v1", "cohere": f"{url}/v2/chat"}.get(vendor, url)
        stream = litellm.completion(
            model=f"{prefix}/{MODELS[vendor]}", messages=messages, api_base=base, **common
        )
    for _ in stream:
        count += 1
    return count


def _loopback(url: str) -> int:
    import httpx

    size = 0
    with httpx.Client() as client, client.stream("POST", url, content=b"{}") as response:
        for piece in response.iter_bytes():
            size += len(piece)
    return size


def main() -> None:
    global _body, _media_type
    server = _Server()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    for line in sys.stdin:
        request = json.loads(line)
        with open(request["file"], "rb") as f:
            _body = f.read()
        _media_type = request.get("media_type", "text/event-stream")
        peer, vendor = request["peer"], request["vendor"]
        try:
            t0 = time.process_time()  # CPU time, as the suite measures its own
            if peer == "pydantic_ai":
                out = asyncio.run(_pydantic_ai(vendor, _body))
            elif peer == "litellm":
                out = _litellm(vendor, url)
            elif peer == "loopback":
                out = _loopback(url)
            else:
                raise ValueError(f"unknown peer {peer!r}")
            answer: dict[str, Any] = {"seconds": time.process_time() - t0, "out": out}
        except Exception as exc:  # reported to the suite, which prints it in the table
            answer = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    server.shutdown()


if __name__ == "__main__":
    main()
