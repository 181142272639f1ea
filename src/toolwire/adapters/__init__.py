"""The adapter registry: one package per peer, all keeping one contract (``contract``).

The built-in adapters are listed once, here (:data:`BUILTINS`: name -> kind); this is
the one module outside the adapter packages that names them. Third-party adapters are
found through the entry-point group ``toolwire.adapters`` (name -> an importable
package that keeps the contract) and work everywhere a built-in does: ``get(name)``,
the CLI, ``toolwire.run(..., vendor=name)``, ``toolwire serve``, the cassette kit,
capabilities. Everything else in toolwire asks this module (``get``, ``client``,
``names``) and holds no vendor name.

Kinds: a ``"model"`` adapter talks to a model through a vendor SDK and brings a
``client.py`` (``CLIENT``, a :class:`~toolwire.adapters.contract.VendorClient`); a
``"stream"`` adapter translates a stream with no SDK client (Dialogflow, Asgard); a
``"result"`` peer has no stream of its own (MCP: tool results, definitions, calls).

Adapters are imported lazily, so importing toolwire imports no vendor SDK; a plugin
that fails to import or to keep the contract is an :class:`AdapterPluginError` naming
it, raised where it is asked for and never where a built-in is.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Literal, cast, overload

from toolwire.adapters.contract import (
    HOOKS,
    Adapter,
    Decoder,
    Encoder,
    ModelAdapter,
    ResultPeer,
    VendorClient,
    members,
)
from toolwire.errors import AdapterPluginError, UnsupportedInput

Kind = Literal["model", "stream", "result"]

#: The entry-point group third-party adapters are declared under.
ENTRY_POINT_GROUP = "toolwire.adapters"

#: The built-in adapters, listed once: name -> kind (each is ``toolwire.adapters.<name>``).
BUILTINS: dict[str, Kind] = {
    "anthropic": "model",
    "openai_chat": "model",
    "openai_responses": "model",
    "gemini": "model",
    "dialogflow": "stream",
    "asgard": "stream",
    "mcp": "result",
}

#: The built-in stream adapters (model and stream kinds); ``names()`` adds plugins.
NAMES: tuple[str, ...] = tuple(n for n, k in BUILTINS.items() if k != "result")

#: The built-in result-only peers (no stream of their own, kept out of ``NAMES``).
RESULT_PEERS: tuple[str, ...] = tuple(n for n, k in BUILTINS.items() if k == "result")

#: The callables every stream adapter module defines, derived from the contract (its
#: members less the optional hooks and the constants).
SURFACE: tuple[str, ...] = tuple(n for n in members(Adapter) if n not in HOOKS and not n.isupper())

#: The constants every stream adapter module defines (``MODEL_ROUTE``, ``FRAMING``).
CONSTANTS: tuple[str, ...] = tuple(n for n in members(Adapter) if n.isupper())

#: The names every model adapter defines beyond the stream adapter's.
MODEL_SURFACE: tuple[str, ...] = tuple(
    n for n in members(ModelAdapter) if n not in members(Adapter)
)

#: The names every result-only peer defines.
RESULT_SURFACE: tuple[str, ...] = members(ResultPeer)

#: The members every ``CLIENT`` has.
CLIENT_SURFACE: tuple[str, ...] = members(VendorClient)


@dataclass(frozen=True)
class Entry:
    """One registered adapter: its name, kind, package, and whether toolwire ships it."""

    name: str
    kind: Kind
    package: str
    builtin: bool


def _key(name: str) -> str:
    return name.replace("-", "_").lower()


@cache
def _declared() -> dict[str, str]:
    """Plugin name -> package, from the installed distributions' entry points."""
    out: dict[str, str] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        out.setdefault(_key(ep.name), ep.value.split(":", 1)[0].strip())
    return out


def kind_of(module: ModuleType) -> Kind:
    """What kind of adapter a package is, by what it defines (``CLIENT``: a model adapter)."""
    if hasattr(module, "CLIENT"):
        return "model"
    if hasattr(module, "decode_result") and not hasattr(module, "Decoder"):
        return "result"
    return "stream"


def _required(kind: Kind) -> tuple[str, ...]:
    if kind == "result":
        return RESULT_SURFACE
    if kind == "model":
        return (*SURFACE, *CONSTANTS, *HOOKS, *MODEL_SURFACE)
    return (*SURFACE, *CONSTANTS, *HOOKS)


def contract_gaps(module: ModuleType, kind: Kind) -> list[str]:
    """The contract members ``module`` lacks for its kind (``CLIENT`` members included)."""
    gaps = [n for n in _required(kind) if not hasattr(module, n)]
    if kind == "model" and "CLIENT" not in gaps:
        client = module.CLIENT
        gaps += [f"CLIENT.{n}" for n in CLIENT_SURFACE if not hasattr(client, n)]
    return gaps


@cache
def _plugin(name: str) -> tuple[Entry, ModuleType]:
    package = _declared()[name]
    try:
        module = importlib.import_module(package)
    except Exception as exc:  # any failure of a third party's import is its own
        raise AdapterPluginError(
            name, f"package {package!r} does not import: {type(exc).__name__}: {exc}"
        ) from exc
    kind = kind_of(module)
    gaps = contract_gaps(module, kind)
    if gaps:
        raise AdapterPluginError(
            name, f"package {package!r} ({kind} adapter) lacks {', '.join(gaps)}"
        )
    return Entry(name, kind, package, builtin=False), module


def entry(name: str) -> Entry:
    """The registry entry for ``name`` (a built-in or a plugin; ``-`` and case ignored)."""
    key = _key(name)
    if key in BUILTINS:
        return Entry(key, BUILTINS[key], f"toolwire.adapters.{key}", builtin=True)
    if key in _declared():
        return _plugin(key)[0]
    known = ", ".join(names(kinds=("model", "stream", "result")))
    raise UnsupportedInput(f"unknown adapter {name!r}; known: {known}")


def names(kinds: tuple[Kind, ...] = ("model", "stream")) -> tuple[str, ...]:
    """Adapter names of the given kinds: the built-ins first, then the installed plugins
    that load (a broken one is left out here; ``get`` of it says why: :func:`broken`)."""
    out = [n for n, k in BUILTINS.items() if k in kinds]
    for name in _declared():
        if name in BUILTINS:
            continue
        try:
            kind = _plugin(name)[0].kind
        except AdapterPluginError:
            continue
        if kind in kinds:
            out.append(name)
    return tuple(out)


def model_names() -> tuple[str, ...]:
    """The model adapters (those with a ``CLIENT``): what ``toolwire.run`` and
    ``toolwire serve`` drive."""
    return names(kinds=("model",))


def broken() -> dict[str, AdapterPluginError]:
    """The declared plugins that cannot be used, each with its error."""
    out: dict[str, AdapterPluginError] = {}
    for name in _declared():
        if name in BUILTINS:
            out[name] = AdapterPluginError(name, "its name is a built-in adapter's; ignored")
            continue
        try:
            _plugin(name)
        except AdapterPluginError as exc:
            out[name] = exc
    return out


@overload
def get(name: Literal["mcp"]) -> ResultPeer: ...  # type: ignore[overload-overlap]


@overload
def get(name: str) -> Adapter: ...


def get(name: str) -> Adapter | ResultPeer:
    """The adapter module for ``name`` (e.g. ``"anthropic"``, ``"mcp"``, or a plugin's).

    Typed as the contract it keeps: :class:`Adapter` for a stream adapter,
    :class:`ResultPeer` for a result-only peer.
    """
    found = entry(name)
    if not found.builtin:
        return cast(Adapter, _plugin(found.name)[1])
    try:
        module = importlib.import_module(found.package)
    except ModuleNotFoundError as exc:
        if exc.name == found.package:
            raise UnsupportedInput(f"the {found.name} adapter is not available yet") from None
        raise
    if found.kind == "result":
        return cast(ResultPeer, module)
    return cast(Adapter, module)


def model(name: str) -> ModelAdapter:
    """The model adapter ``name`` (an ``UnsupportedInput`` naming the model adapters if it
    is another kind)."""
    found = entry(name)
    if found.kind != "model":
        raise UnsupportedInput(
            f"{name!r} is not a model adapter; one of {', '.join(model_names())}"
        )
    return cast(ModelAdapter, get(found.name))


def client(name: str) -> VendorClient:
    """The ``CLIENT`` of model adapter ``name``: its SDK as the drivers need it."""
    return model(name).CLIENT


def package_of(name: str) -> str:
    """The importable package of adapter ``name`` (where its data files live)."""
    return entry(name).package


def refresh() -> None:
    """Forget what was read of the installed plugins (after installing one at run time)."""
    _declared.cache_clear()
    _plugin.cache_clear()


def available() -> list[str]:
    """Stream adapter names whose package can be found in this installation."""
    out = []
    for n in names():
        if importlib.util.find_spec(package_of(n)) is not None:
            out.append(n)
    return out


__all__ = [
    "BUILTINS",
    "CLIENT_SURFACE",
    "CONSTANTS",
    "ENTRY_POINT_GROUP",
    "HOOKS",
    "MODEL_SURFACE",
    "NAMES",
    "RESULT_PEERS",
    "RESULT_SURFACE",
    "SURFACE",
    "Adapter",
    "Decoder",
    "Encoder",
    "Entry",
    "Kind",
    "ModelAdapter",
    "ResultPeer",
    "VendorClient",
    "available",
    "broken",
    "client",
    "contract_gaps",
    "entry",
    "get",
    "kind_of",
    "model",
    "model_names",
    "names",
    "package_of",
    "refresh",
]
