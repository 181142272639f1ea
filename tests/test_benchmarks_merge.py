"""A ``--vendor`` run of the bench puts its rows into the page's tables, keeping the others.

``benchmarks.suite.merge_report`` is what ``./dev bench --vendor X`` writes with: each table of
the subset's report is matched to the page's table of the same header; the page's rows of
those vendors are replaced, every other vendor's row stays; the subset's header line goes
beside the full run's; its extras' output beside theirs. A second merge of the same vendors
replaces the first (partial tables are written the same way during a long run).
"""

from __future__ import annotations

from benchmarks.suite import merge_report

FULL = """Run 2026-12-05 01:58 UTC on a machine. Command: `./dev bench`.

Medians of 3 interleaved repetitions after a warm-up round. spread: median 3%.

| vendor | shape | events | SDK parse ms |
|---|---|---|---|
| gemini | tool | 2000 | 337.3 |
| anthropic | tool | 2000 | 34.4 |

Targets:

| target | bound | vendor | measured | verdict |
|---|---|---|---|---|
| added | ≤ +10% | anthropic | +10% | not met |
| added | ≤ +10% | gemini | +14% | not met |
| request | ≤ 2.0× | anthropic (history) | 1.83× | met |

`benchmarks/bench_gateway.py`:

```
gateway: anthropic 1 2 3

goals: anthropic
```
"""


def _subset(stamp: str, gemini_ms: str, extra: bool = True) -> tuple[str, list[str]]:
    report = f"""Run {stamp} on a machine. Command: `./dev bench --vendor gemini`.

Medians of 5 interleaved repetitions after a warm-up round. spread: median 9%.

| vendor | shape | events | SDK parse ms |
|---|---|---|---|
| gemini | tool | 2000 | {gemini_ms} |

Targets:

| target | bound | vendor | measured | verdict |
|---|---|---|---|---|
| added | ≤ +10% | gemini | +9% | met |
| request | ≤ 2.0× | gemini (history) | 1.50× | met |
"""
    extras = [f"`benchmarks/bench_gateway.py`:\n\n```\ngateway: gemini {stamp}\n```"]
    return report, extras if extra else []


def test_a_subset_replaces_its_rows_and_keeps_every_other_vendors() -> None:
    report, extras = _subset("03:00", "300.0")
    merged = merge_report(FULL, report, ["gemini"], extras)
    lines = merged.splitlines()
    assert "| anthropic | tool | 2000 | 34.4 |" in lines
    assert "| gemini | tool | 2000 | 300.0 |" in lines
    assert "| gemini | tool | 2000 | 337.3 |" not in lines
    # a grouped table: the new row goes after the last row of its group
    added = [line for line in lines if line.startswith("| added |")]
    assert added == [
        "| added | ≤ +10% | anthropic | +10% | not met |",
        "| added | ≤ +10% | gemini | +9% | met |",
    ]
    request = [line for line in lines if line.startswith("| request |")]
    assert request[-1] == "| request | ≤ 2.0× | gemini (history) | 1.50× | met |"
    assert len(request) == 2
    # both runs' headers are on the page, the full run's first
    assert merged.index("Command: `./dev bench`.") < merged.index("`./dev bench --vendor gemini`")
    assert "Rows of gemini" in merged
    # both gateway outputs: the full run's and the subset's, labelled
    assert "gateway: anthropic 1 2 3" in merged and "gateway: gemini 03:00" in merged


def test_merging_the_same_vendors_again_replaces_the_first_merge() -> None:
    report, extras = _subset("03:00", "300.0")
    first = merge_report(FULL, report, ["gemini"], extras)
    report, extras = _subset("04:00", "290.0")
    second = merge_report(first, report, ["gemini"], extras)
    assert "| gemini | tool | 2000 | 290.0 |" in second
    assert "300.0" not in second and "03:00" not in second
    assert second.count("Rows of gemini") == 1
    assert second.count("gateway: gemini") == 1
    assert "gateway: anthropic 1 2 3" in second and "\n\n\n" not in second


def test_a_page_without_tables_takes_the_subset_whole() -> None:
    report, extras = _subset("03:00", "300.0")
    merged = merge_report("", report, ["gemini"], extras)
    assert merged.startswith("Run 03:00") and "gateway: gemini 03:00" in merged


def test_a_requests_only_run_replaces_only_the_request_rows() -> None:
    report = """Run 05:00 on a machine. Command: `./dev bench --vendor gemini --requests-only`.

Medians of 3 interleaved repetitions after a warm-up round. spread: median 2%.

| vendor | shape | events | SDK parse ms |
|---|---|---|---|

Targets:

| target | bound | vendor | measured | verdict |
|---|---|---|---|---|
| request | ≤ 2.0× | gemini (history) | 1.40× | met |
"""
    report0, extras = _subset("03:00", "300.0")
    first = merge_report(FULL, report0, ["gemini"], extras)
    merged = merge_report(first, report, ["gemini"], [], " (`encode_request` only)")
    lines = merged.splitlines()
    # the stream rows and the other targets of the vendor stay; its request row is new
    assert "| gemini | tool | 2000 | 300.0 |" in lines
    assert "| added | ≤ +10% | gemini | +9% | met |" in lines
    assert "| request | ≤ 2.0× | gemini (history) | 1.40× | met |" in lines
    assert "| request | ≤ 2.0× | gemini (history) | 1.50× | met |" not in lines
    # the first subset's header paragraph stays beside this one's
    assert "Rows of gemini (a `--vendor` run" in merged
    assert "Rows of gemini (`encode_request` only) (a `--vendor` run" in merged
