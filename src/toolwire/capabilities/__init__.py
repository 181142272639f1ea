"""What each target takes, where: kept as data in its adapter (``capabilities.json`` in the
adapter's package, a plugin's too), overridable.

A target's file lists model families (shell patterns on the model name, first
match wins, ``*`` is the family default an unknown model falls back to), each
saying what a tool result and a user message take: part kinds, MIME types and
source kinds. ``file_providers`` names whose file handles the target resolves.
A caller with other needs builds its own :class:`~toolwire.protocol.Accepts`
(or passes a table to :func:`accepts_from_table`) and hands it to the encoder.
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from functools import cache
from importlib import resources
from typing import Any, Literal

from toolwire.errors import UnsupportedInput
from toolwire.protocol.fitting import Accepts, PartRule

Place = Literal["tool_result", "user_message"]

#: The file an adapter package ships its capability rows in.
CAPABILITIES_FILE = "capabilities.json"


def targets() -> tuple[str, ...]:
    """The adapters (built-in and plugins) that ship capability rows."""
    from toolwire import adapters

    out = []
    for name in adapters.names():
        if resources.files(adapters.package_of(name)).joinpath(CAPABILITIES_FILE).is_file():
            out.append(name)
    return tuple(out)


@cache
def table(target: str) -> dict[str, Any]:
    """The raw capability table of one target (``capabilities.json`` in its package)."""
    from toolwire import adapters

    try:
        package = adapters.package_of(target)
        text = resources.files(package).joinpath(CAPABILITIES_FILE).read_text("utf-8")
    except (FileNotFoundError, ModuleNotFoundError, UnsupportedInput):
        raise UnsupportedInput(f"no capability table for target {target!r}") from None
    data: dict[str, Any] = json.loads(text)
    return data


def family(target: str, model: str | None = None, backend: str | None = None) -> dict[str, Any]:
    """The family entry that applies to ``model`` (and ``backend``) of ``target``."""
    return _pick(table(target), model, backend)


def _pick(data: dict[str, Any], model: str | None, backend: str | None) -> dict[str, Any]:
    name = (model or "").lower()
    fallback: dict[str, Any] | None = None
    for fam in data["families"]:
        want_backend = fam.get("backend")
        if want_backend is not None and want_backend != (backend or data.get("default_backend")):
            continue
        patterns = fam.get("match", ["*"])
        if "*" in patterns and fallback is None:
            fallback = fam
        if name and any(p != "*" and fnmatchcase(name, p) for p in patterns):
            return dict(fam)
    if fallback is None:
        raise UnsupportedInput(f"{data['target']}: no family applies to model {model!r}")
    return dict(fallback)


def _file_providers(data: dict[str, Any], backend: str | None) -> list[str]:
    """Whose file handles the target resolves: per backend when the table says so."""
    by_backend = data.get("file_providers_by_backend", {})
    chosen = backend or data.get("default_backend")
    if chosen in by_backend:
        return list(by_backend[chosen])
    return list(data.get("file_providers", []))


def accepts_from_table(
    data: dict[str, Any], place: Place, model: str | None = None, backend: str | None = None
) -> Accepts:
    """Build the :class:`Accepts` of one place from a table shaped like the shipped ones."""
    fam = _pick(data, model, backend)
    spec = fam.get(place, {})
    rules = tuple(
        PartRule(
            kind=r["kind"],
            mime_types=tuple(r.get("mime_types", ["*"])),
            sources=tuple(r.get("sources", ["data", "url", "file"])),
            allow_unknown_mime=bool(r.get("allow_unknown_mime", True)),
            url_schemes=tuple(r.get("url_schemes", ())),
        )
        for r in spec.get("rules", [])
    )
    label = data["target"]
    if backend:
        label += f" {backend}"
    if model:
        label += f" ({model})"
    if place == "user_message":
        label += " user message"
    return Accepts(
        target=label,
        rules=rules,
        text=bool(spec.get("text", True)),
        file_providers=tuple(_file_providers(data, backend)),
        upgrade=fam.get("upgrade") or data.get("upgrade"),
    )


def accepts(
    target: str,
    *,
    place: Place = "tool_result",
    model: str | None = None,
    backend: str | None = None,
) -> Accepts:
    """What ``target`` (with ``model`` on ``backend``) takes in ``place``."""
    return accepts_from_table(table(target), place, model, backend)


def provider_of(target: str) -> str:
    """The provider name this target issues file handles and usage under."""
    value = table(target)["provider"]
    assert isinstance(value, str)
    return value


__all__ = [
    "CAPABILITIES_FILE",
    "Place",
    "accepts",
    "accepts_from_table",
    "family",
    "provider_of",
    "table",
    "targets",
]
