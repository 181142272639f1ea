"""The capability data rendered as a Markdown table (docs/capabilities.md is generated from it)."""

from __future__ import annotations

from toolwire.capabilities import table, targets


def __getattr__(name: str) -> object:
    """``TARGETS``: the adapters that ship capability rows (``capabilities.targets()``)."""
    if name == "TARGETS":
        return targets()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _rules(spec: dict[str, object]) -> str:
    rules = spec.get("rules") or []
    assert isinstance(rules, list)
    if not rules:
        return "text only"
    cells = []
    for r in rules:
        mimes = ", ".join(r.get("mime_types", ["*"]))
        sources = "/".join(
            f"url ({'/'.join(x + '://' for x in r['url_schemes'])} only)"
            if src == "url" and r.get("url_schemes")
            else src
            for src in r.get("sources", ["data", "url", "file"])
        )
        cells.append(f"{r['kind']} ({mimes}; {sources})")
    return "text; " + "; ".join(cells)


HEADER = """# What each target takes

Generated from `src/toolwire/adapters/*/capabilities.json` by
`python -m toolwire.capabilities.render > docs/capabilities.md`; a test keeps the two equal.
Each row is a model family (shell patterns on the model name, first match wins; `*` is the
default an unknown model falls back to). A cell lists part kinds with their MIME types and
source kinds (data / url / file); "file handles from" names whose provider file handles the
target resolves. Text is always taken. What a row does not list is dropped with a
`PartsDroppedWarning`, or moved to a user message with `media="relocate"` where the user
message takes it.

"""


def markdown() -> str:
    """One row per target family: what a tool result and a user message take."""
    lines = [
        "| target | family (model patterns) | tool result | user message | file handles from |",
        "|---|---|---|---|---|",
    ]
    for target in targets():
        data = table(target)
        by_backend = data.get("file_providers_by_backend", {})
        if by_backend:
            providers = "; ".join(f"{b}: {', '.join(p)}" for b, p in by_backend.items())
        else:
            providers = ", ".join(data.get("file_providers", [])) or "none"
        for fam in data["families"]:
            patterns = ", ".join(f"`{p}`" for p in fam.get("match", ["*"]))
            backend = f" [{fam['backend']}]" if fam.get("backend") else ""
            lines.append(
                f"| {target} | {fam['name']}{backend}: {patterns} | "
                f"{_rules(fam.get('tool_result', {}))} | {_rules(fam.get('user_message', {}))} | "
                f"{providers} |"
            )
    return HEADER + "\n".join(lines) + "\n"


__all__ = ["markdown"]

if __name__ == "__main__":  # pragma: no cover
    print(markdown(), end="")
