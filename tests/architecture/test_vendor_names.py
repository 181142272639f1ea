"""The adapter owns its vendor: outside ``src/toolwire/adapters/<name>/`` only the registry
(``toolwire/adapters/__init__.py``, the list of built-ins) names a built-in vendor.

"Names" means the code does: an import, an identifier, an attribute, or a string that is
not a docstring holds the vendor's word. Prose (docstrings, comments) may mention vendors
as examples; a vendor if-chain, a vendor list or a vendor import cannot hide there.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from toolwire import adapters

SRC = Path(__file__).resolve().parents[2] / "src" / "toolwire"

#: each built-in's name and its first word (``openai`` of ``openai_chat``), and the SDK
#: words of the built-ins that do not spell their vendor in their name
WORDS = sorted(
    {*adapters.BUILTINS, *(n.split("_")[0] for n in adapters.BUILTINS), "google", "genai"}
)
PATTERN = re.compile(r"(?i)(?<![a-z0-9])(" + "|".join(map(re.escape, WORDS)) + r")(?![a-z0-9])")


def _docstrings(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def vendor_words(path: Path) -> list[str]:
    """Where a module's code names a built-in vendor (``line: word``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        texts: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            texts.append(node.value)
        elif isinstance(node, ast.Name):
            texts.append(node.id)
        elif isinstance(node, ast.Attribute):
            texts.append(node.attr)
        elif isinstance(node, ast.Import):
            texts += [a.name for a in node.names] + [a.asname or "" for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            texts += [node.module or ""] + [a.name for a in node.names]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            texts.append(node.name)
        for text in texts:
            for m in PATTERN.finditer(text.replace("_", " ").replace(".", " ")):
                found.append(f"{getattr(node, 'lineno', '?')}: {m.group(1)}")
    return found


def _outside_adapter_packages() -> list[Path]:
    packages = SRC / "adapters"
    return [
        p
        for p in sorted(SRC.rglob("*.py"))
        if not (p.parent.parent == packages or (packages in p.parents and p.parent != packages))
    ]


def test_the_word_list_matches_what_it_looks_for() -> None:
    assert vendor_words.__doc__
    assert PATTERN.search("openai chat") and not PATTERN.search("openaix")


def test_at_most_one_module_outside_the_adapter_packages_names_a_built_in_vendor() -> None:
    naming = {
        str(p.relative_to(SRC)): words
        for p in _outside_adapter_packages()
        if (words := vendor_words(p))
    }
    assert list(naming) == ["adapters/__init__.py"], naming
