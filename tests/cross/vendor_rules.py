"""The one check every cross-vendor test runs on an encoded request: would its vendor take it?

Each model adapter's test folder declares its vendor's rules (``tests/vendor_<name>/_rules.py``:
``MODEL``, ``ID_RULE``, ``check(body)`` giving the answered ids, ``stream_ids(chunks)``), each
the vendor's documented one (vendor-wire-formats.md, and the API's own validation messages),
written as data and never read from toolwire:

* pairing: every call answered where the vendor demands it, in the vendor's order, and no
  result that answers nothing;
* call ids: unique in the request, and within the vendor's id rule.

(plus ``FAMILY``, ``CONVERSATION`` and ``sdk_accepts(body)``, the vendor SDK's own types
judging a body). This module gathers them for every model adapter in the registry, so a new
adapter brings its rules with its tests and every cross-vendor test takes them up without an
edit here; a model adapter with no rules file fails at import, naming it, never skips.
``check_request(target, body)`` asserts all of it and returns the call ids the request
answers, in request order.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rule_kit

from toolwire import adapters

#: A model of each target that the cross-vendor tests encode for.
MODELS: dict[str, str] = {}
#: (max length, full-match pattern) of a tool call id, per target, as documented.
ID_RULES: dict[str, tuple[int | None, str | None]] = {}
#: Whether a request keeps the target's rules; the call ids it answers.
CHECKS: dict[str, Callable[[dict[str, Any]], list[str]]] = {}
#: The call ids a target's stream chunks carry, read the way its SDK reads them.
STREAM_IDS: dict[str, Callable[[list[dict[str, Any]]], list[str]]] = {}
#: The capability family row (``adapters/<name>/capabilities.json``) that covers its model.
FAMILIES: dict[str, str] = {}
#: Where a target's body holds the conversation (``messages``, ``contents``...).
CONVERSATIONS: dict[str, str] = {}
#: The vendor SDK's own types judging a body: they take it unchanged, or this raises.
SDK_ACCEPTS: dict[str, Callable[[dict[str, Any]], None]] = {}


def _load_rules() -> None:
    tests = Path(__file__).resolve().parents[1]
    missing = []
    for name in adapters.model_names():
        path = tests / f"vendor_{name}" / "_rules.py"
        if not path.is_file():
            missing.append(f"tests/vendor_{name}/_rules.py")
            continue
        spec = importlib.util.spec_from_file_location(f"_{name}_rules", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        MODELS[name] = module.MODEL
        ID_RULES[name] = module.ID_RULE
        CHECKS[name] = module.check
        STREAM_IDS[name] = module.stream_ids
        FAMILIES[name] = module.FAMILY
        CONVERSATIONS[name] = module.CONVERSATION
        SDK_ACCEPTS[name] = module.sdk_accepts
    assert not missing, f"model adapters without their vendor's rules: {', '.join(missing)}"


_load_rules()


def check_id(target: str, call_id: Any) -> None:
    rule_kit.check_id(target, ID_RULES[target], call_id)


def check_request(target: str, body: dict[str, Any]) -> list[str]:
    """Assert ``body`` keeps every pairing and id rule of ``target``; its answered call ids."""
    return CHECKS[target](body)


def sent_ids(target: str, ids: list[str], losses: list[Any]) -> list[str]:
    """``ids`` as ``target`` must have been sent them: unchanged, or (an id its rule
    rejects) the conforming id the ``call-id-remapped`` loss names."""
    remapped = {x.tool_call_id: x.sent_as for x in losses if x.kind == "call-id-remapped"}
    out = []
    for i in ids:
        if i in remapped:
            try:
                check_id(target, i)
            except AssertionError:
                out.append(remapped[i])
                continue
            raise AssertionError(f"{target}: {i!r} conforms, yet it was remapped")
        out.append(i)
    return out


__all__ = [
    "CHECKS",
    "CONVERSATIONS",
    "FAMILIES",
    "ID_RULES",
    "MODELS",
    "SDK_ACCEPTS",
    "STREAM_IDS",
    "check_id",
    "check_request",
    "sent_ids",
]
