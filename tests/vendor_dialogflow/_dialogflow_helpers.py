"""Helpers for the Dialogflow adapter tests: the hand-built recordings, read independently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes" / "dialogflow"


def recording_objects(path: Path) -> list[dict[str, Any]]:
    """Every response object a project recording holds, read straight from the file."""
    if path.suffix in (".yaml", ".yml"):
        import yaml

        doc = yaml.safe_load(path.read_text("utf-8"))
        return [json.loads(i["response"]["body"]["string"]) for i in doc["interactions"]]
    text = path.read_text("utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    value = json.loads(text)
    return value if isinstance(value, list) else [value]


RECORDINGS = sorted(p.name for p in CASSETTES.iterdir() if p.suffix in (".yaml", ".json", ".jsonl"))


def infos_of(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The ToolCallInfo objects a response holds, in order (walked here, not by the adapter)."""
    out: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "toolCall" in value or "toolCallResult" in value:
                out.append(value)
                return
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(response)
    return out


def compact(value: Any) -> str:
    """JSON text as the spec of the mapping says arguments are written: compact, order kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
