"""Every text parse on a request encoder's way tells ``finite`` what it parsed.

``encode_request`` skips walking its body for NaN / infinity when nothing that entered it may
hold one; a value parsed from a caller's text (json reads ``1e999`` as an infinity) is
such an entry, noted by ``finite.from_text``. A function of an adapter's request or parts
module that parses text and does not hand the value to ``from_text`` would let one through
unseen: this test finds any.
"""

from __future__ import annotations

import ast
from pathlib import Path

import toolwire.adapters

PARSERS = {"loads", "load_json", "arguments_object", "parse_arguments_object"}
ROOT = Path(toolwire.adapters.__file__).parent


def _called(node: ast.AST) -> set[str]:
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            if isinstance(f, ast.Name):
                names.add(f.id)
            elif isinstance(f, ast.Attribute):
                names.add(f.attr)
    return names


def _functions(path: Path) -> list[ast.FunctionDef]:
    tree = ast.parse(path.read_text("utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]


def test_every_parse_in_a_request_encoder_is_noted() -> None:
    unnoted: list[str] = []
    modules = sorted([*ROOT.glob("*/request.py"), *ROOT.glob("*/parts.py")])
    assert len(modules) >= 15
    for path in modules:
        for fn in _functions(path):
            if fn.name.startswith(("decode", "_decode")) or fn.name.endswith("_to_agui"):
                continue  # (reading a vendor's body: no request body is written from it)
            called = _called(fn)
            if called & PARSERS and "from_text" not in called:
                unnoted.append(f"{path.parent.name}/{path.name}:{fn.name}")
    assert unnoted == []
