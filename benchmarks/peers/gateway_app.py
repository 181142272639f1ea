"""Pydantic AI's AG-UI app for the gateway benchmark: runs inside ``benchmarks/peers/.venv``.

``python gateway_app.py BASE_URL PORT VENDOR...``: per vendor, an agent whose model is the
vendor's Pydantic AI model over the vendor's own SDK, its base URL the fake vendor's
``BASE_URL/<vendor>`` on 127.0.0.1, served at ``POST /agents/<vendor>`` by
``AGUIAdapter.dispatch_request`` (the frontend tools come with each run, so a turn that calls
them ends the run), with uvicorn on 127.0.0.1:PORT (one process, uvicorn's defaults, as
``toolwire serve`` runs). It stops on SIGTERM.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

warnings.simplefilter("ignore")

MODELS = {
    "anthropic": "claude-sonnet-4-6",
    "openai_chat": "gpt-4o",
    "openai_responses": "gpt-5",
    "gemini": "gemini-3-pro-preview",
    "mistral": "mistral-large-latest",
    "cohere": "command-a-03-2025",
}


def _model(vendor: str, base_url: str) -> Any:
    name = MODELS[vendor]
    if vendor == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        return AnthropicModel(name, provider=AnthropicProvider(api_key="x", base_url=base_url))
    if vendor in ("openai_chat", "openai_responses"):
        from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        cls = OpenAIChatModel if vendor == "openai_chat" else OpenAIResponsesModel
        return cls(name, provider=OpenAIProvider(api_key="x", base_url=base_url))
    if vendor == "gemini":
        from pydantic_ai.models.google import GoogleModel
        from pydantic_ai.providers.google import GoogleProvider

        return GoogleModel(name, provider=GoogleProvider(api_key="x", base_url=base_url))
    if vendor == "mistral":
        from pydantic_ai.models.mistral import MistralModel
        from pydantic_ai.providers.mistral import MistralProvider

        return MistralModel(name, provider=MistralProvider(api_key="x", base_url=base_url))
    if vendor == "cohere":
        from cohere import AsyncClientV2
        from pydantic_ai.models.cohere import CohereModel
        from pydantic_ai.providers.cohere import CohereProvider

        # the provider takes its base URL from the environment only; its own client takes it
        client = AsyncClientV2(api_key="x", base_url=base_url)
        return CohereModel(name, provider=CohereProvider(cohere_client=client))
    raise ValueError(f"no Pydantic AI model for {vendor!r} in the gateway benchmark")


def main() -> None:
    import uvicorn
    from pydantic_ai import Agent
    from pydantic_ai.ui.ag_ui import AGUIAdapter
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    base_url, port, vendors = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

    def endpoint(vendor: str) -> Any:
        agent: Any = Agent(_model(vendor, f"{base_url}/{vendor}"))

        async def run(request: Request) -> Response:
            response: Response = await AGUIAdapter.dispatch_request(request, agent=agent)
            return response

        return run

    routes = [Route(f"/agents/{v}", endpoint(v), methods=["POST"]) for v in vendors]
    app = Starlette(routes=routes)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info")


if __name__ == "__main__":
    main()
