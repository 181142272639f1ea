"""A hybrid agent over HTTP: `get_weather` runs here, `confirm_booking` runs in the UI.

The UI (e.g. @ag-ui/client's HttpAgent) declares `confirm_booking` in its run input's tools;
the model's calls of it end the run pending, and the UI's answer goes in the next run.
Run it: ANTHROPIC_API_KEY=... python examples/hybrid_agent/app.py (docs/guide/agents.md).
"""

from pathlib import Path
from typing import Any

import toolwire
from toolwire.server import Agent, create_app, serve

SKY = Path(__file__).with_name("sky.png")


def get_weather(city: str) -> list[Any]:
    """The weather in a city, with a picture of its sky.

    Args:
        city: the city's name
    """
    return [f"Sunny in {city}, 21 C", toolwire.file_part(SKY)]


def hybrid_app(client: Any, model: str, **options: Any) -> Any:
    """One agent, "hybrid", over one async SDK client built once and reused by every run."""

    def run(run_input: Any) -> Any:
        return toolwire.arun(client, run_input, model=model, tools=[get_weather], **options)

    return create_app(agents={"hybrid": Agent(run, clients=(client,), model=model)})


if __name__ == "__main__":
    import anthropic

    serve(hybrid_app(anthropic.AsyncAnthropic(), "claude-sonnet-4-5", max_tokens=1024))
