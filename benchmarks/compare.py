"""Two runs' tables side by side: which cells got worse by more than a bound.

``python -m benchmarks.compare OLD.md NEW.md [--bound 0.10]`` reads the first table of each
page's ``bench`` section (the per-stream ratios; ``git show REV:docs/performance.md > old.md``
gives an earlier run's) and prints every cell of a row both runs have that moved the wrong
way by more than ``bound``: a ratio over a floor or the SDK that grew, a peer's ratio over
toolwire that shrank. Ratios only: milliseconds differ between runs of a shared machine.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.suite import BEGIN, END

#: leading words of the columns where a larger value is better (the peers over toolwire)
HIGHER_IS_BETTER = ("Pydantic AI", "LiteLLM")


def first_table(page: str) -> tuple[list[str], dict[tuple[str, ...], list[str]]]:
    """The header and the rows (keyed by vendor, shape, events) of the section's first table."""
    section = page.split(BEGIN, 1)[-1].split(END, 1)[0]
    lines = [x for x in section.splitlines() if x.startswith("| vendor | shape | events |")]
    if not lines:
        raise ValueError("no stream table in the page")
    at = section.splitlines().index(lines[0])
    rows = section.splitlines()[at:]
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    out: dict[tuple[str, ...], list[str]] = {}
    for row in rows[2:]:
        if not row.startswith("|"):
            break
        cells = [c.strip() for c in row.strip("|").split("|")]
        out[tuple(cells[:3])] = cells
    return head, out


def number(cell: str) -> float | None:
    m = re.match(r"^\+?(-?[0-9.]+)(%|×)", cell)
    if m is None:
        return None
    value = float(m.group(1))
    return 1 + value / 100 if m.group(2) == "%" else value


def worse(old: str, new: str, bound: float) -> list[str]:
    head, before = first_table(old)
    head_new, after = first_table(new)
    out = []
    for key, cells in before.items():
        now = after.get(key)
        if now is None:
            continue
        for i, name in enumerate(head):
            if i < 4 or name not in head_new:
                continue  # the keys and the SDK's milliseconds
            j = head_new.index(name)
            a, b = number(cells[i]), number(now[j])
            if a is None or b is None or a == 0:
                continue
            higher = name.startswith(HIGHER_IS_BETTER)
            change = (a / b - 1) if higher else (b / a - 1)
            if change > bound:
                out.append(
                    f"{' '.join(key)}: {name}: {cells[i]} -> {now[j]} ({change * 100:.0f}% worse)"
                )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.compare")
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--bound", type=float, default=0.10)
    args = ap.parse_args(argv)
    rows = worse(args.old.read_text(), args.new.read_text(), args.bound)
    for row in rows:
        print(row)
    print(f"{len(rows)} cells worse by more than {args.bound * 100:.0f}%", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
