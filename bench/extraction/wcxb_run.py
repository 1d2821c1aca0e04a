"""WCXB's development set (1,497 real pages in seven types, hand-reviewed main content; see
``tests/wcxb.py`` for the layout and the scoring): word F1 overall and per page type, the shares
of ``with`` snippets found and ``without`` snippets leaked, empty results on pages with readable
text, CPU pages per second, the largest losses against trafilatura, and the fidelity of each
system's Markdown to the page's reference Markdown (``tests/fidelity.py``: tables, code blocks,
lists)."""

from __future__ import annotations

import csv
import statistics
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from bench.extraction.runner import SYSTEMS, Extraction, extract, order
from tests.fidelity import (
    REPRODUCED,
    Structure,
    code_shares,
    list_shares,
    read_structure,
    table_shares,
)
from tests.wcxb import (
    PAGE_TYPES,
    PageScore,
    WcxbPage,
    file_ids,
    load_page,
    markdown_to_text,
    page_type,
    read_label,
    score_page,
)

WORST = 20
"""How many of the largest F1 losses against trafilatura are listed."""
PROGRESS_EVERY = 100


@dataclass
class Result:
    """One system on one page."""

    score: PageScore
    cpu_seconds: float
    failure: str = ""
    app_shell: bool = False
    structure: Structure | None = None


@dataclass
class PageRow:
    page: WcxbPage
    reference: Structure | None = None
    """The reference Markdown's structure (None when the page has no reference Markdown)."""
    results: dict[str, Result] = field(default_factory=dict)


def run_one(name: str, page: WcxbPage, with_structure: bool) -> Result:
    done: Extraction = extract(name, page.html, page.url)
    structure = read_structure(done.markdown) if with_structure else None
    score = score_page(markdown_to_text(done.markdown), page)
    return Result(score, done.cpu_seconds, done.failure, done.app_shell, structure)


def selected_ids(data: Path, types: set[str] | None, limit: int | None) -> list[str]:
    ids = file_ids(data)
    if types:
        ids = [file_id for file_id in ids if page_type(read_label(data, file_id)) in types]
    return ids[:limit] if limit is not None else ids


def run(data: Path, ids: list[str]) -> list[PageRow]:
    rows = []
    for n, file_id in enumerate(ids):
        try:
            page = load_page(data, file_id)
            markdown = read_label(data, file_id)["ground_truth"].get("main_content_markdown")
        except (OSError, ValueError, KeyError) as exc:  # a broken file is named, not fatal
            print(f"  {file_id}: not loaded ({type(exc).__name__})", file=sys.stderr)
            continue
        reference = read_structure(markdown) if markdown else None
        row = PageRow(replace(page, html=""), reference)  # the tables need labels, not pages
        for name in order(n):
            row.results[name] = run_one(name, page, reference is not None)
        rows.append(row)
        if (n + 1) % PROGRESS_EVERY == 0:
            print(f"  {n + 1}/{len(ids)} pages", file=sys.stderr, flush=True)
    return rows


# -- tables -----------------------------------------------------------------------------------


def scored(rows: list[PageRow]) -> list[PageRow]:
    """The rows whose main content has words (F1 against nothing means nothing)."""
    return [row for row in rows if row.page.main_content.strip()]


def mean_f1(rows: list[PageRow], name: str) -> float:
    f1s = [row.results[name].score.f1 for row in scored(rows)]
    return statistics.fmean(f1s) if f1s else 0.0


def share(found: int, total: int) -> str:
    return f"{found / total:.3f}" if total else "-"


def with_share(rows: list[PageRow], name: str) -> str:
    picked = scored(rows)
    return share(
        sum(row.results[name].score.with_found for row in picked),
        sum(row.results[name].score.with_total for row in picked),
    )


def without_share(rows: list[PageRow], name: str) -> str:
    picked = scored(rows)
    return share(
        sum(row.results[name].score.without_leaked for row in picked),
        sum(row.results[name].score.without_total for row in picked),
    )


def overall_table(rows: list[PageRow]) -> None:
    print("\n## wcxb-dev")
    readable = [row for row in rows if row.page.readable]
    seconds = {name: sum(row.results[name].cpu_seconds for row in rows) for name in SYSTEMS}
    rate = {name: len(rows) / seconds[name] if seconds[name] else 0.0 for name in SYSTEMS}
    print(f"\n{len(scored(rows))} pages scored ({len(rows)} run, {len(readable)} readable)\n")
    print(
        "| system | word F1 | `with` found | `without` leaked | empty (readable) | failed "
        "| CPU pages/s | vs trafilatura |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in SYSTEMS:
        empty = [row.results[name] for row in readable if row.results[name].score.empty]
        shells = sum(1 for result in empty if result.app_shell)
        empties = f"{len(empty)} ({shells} app shells)" if shells else str(len(empty))
        failed = sum(1 for row in rows if row.results[name].failure)
        ratio = rate[name] / rate["trafilatura"] if rate["trafilatura"] else 0.0
        print(
            f"| {name} | {mean_f1(rows, name):.3f} | {with_share(rows, name)} "
            f"| {without_share(rows, name)} | {empties} | {failed} | {rate[name]:.1f} "
            f"| {ratio:.2f} |"
        )
    failures = sorted(
        f"{name} {row.page.file_id}: {row.results[name].failure}"
        for row in rows
        for name in SYSTEMS
        if row.results[name].failure
    )
    for line in failures:
        print(f"\n- failed: {line}")


def type_table(rows: list[PageRow]) -> None:
    print(
        "\n| type | pages | Pagecast F1 | trafilatura F1 | difference "
        "| `with` found P / t | `without` leaked P / t |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind in PAGE_TYPES:
        picked = [row for row in rows if row.page.page_type == kind]
        if not scored(picked):
            continue
        ours, theirs = mean_f1(picked, "pagecast"), mean_f1(picked, "trafilatura")
        print(
            f"| {kind} | {len(scored(picked))} | {ours:.3f} | {theirs:.3f} | {ours - theirs:+.3f} "
            f"| {with_share(picked, 'pagecast')} / {with_share(picked, 'trafilatura')} "
            f"| {without_share(picked, 'pagecast')} / {without_share(picked, 'trafilatura')} |"
        )


def losses_table(rows: list[PageRow]) -> None:
    def loss(row: PageRow) -> float:
        return row.results["trafilatura"].score.f1 - row.results["pagecast"].score.f1

    worst = sorted(scored(rows), key=lambda row: (-loss(row), row.page.file_id))[:WORST]
    print(f"\nThe {WORST} largest F1 losses against trafilatura\n")
    print("| file | type | Pagecast F1 | trafilatura F1 | loss |")
    print("|---|---|---:|---:|---:|")
    for row in worst:
        print(
            f"| {row.page.file_id} | {row.page.page_type} "
            f"| {row.results['pagecast'].score.f1:.3f} "
            f"| {row.results['trafilatura'].score.f1:.3f} | {loss(row):.3f} |"
        )


def write_per_page(rows: list[PageRow], path: Path) -> None:
    columns = ["f1", "with_found", "with_total", "without_leaked", "without_total", "empty"]
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        header = ["file_id", "type", "url"]
        for name in SYSTEMS:
            header += [f"{name}_{column}" for column in columns]
            header += [f"{name}_cpu_ms", f"{name}_failure"]
        writer.writerow([*header, "pagecast_app_shell"])
        for row in rows:
            line: list[object] = [row.page.file_id, row.page.page_type, row.page.url]
            for name in SYSTEMS:
                result = row.results[name]
                score = result.score
                line += [
                    f"{score.f1:.4f}",
                    score.with_found,
                    score.with_total,
                    score.without_leaked,
                    score.without_total,
                    int(score.empty),
                    f"{result.cpu_seconds * 1e3:.2f}",
                    result.failure,
                ]
            writer.writerow([*line, int(row.results["pagecast"].app_shell)])


def fidelity_table(rows: list[PageRow]) -> None:
    """Each system's tables, code blocks and lists against the reference Markdown's."""
    measures = (("tables", table_shares), ("code blocks", code_shares), ("lists", list_shares))
    print(
        "\nMarkdown fidelity against the reference Markdown "
        f"(reproduced: at least {REPRODUCED:.0%} of a table's cells or a block's lines)\n"
    )
    print("| structure | in the references | system | reproduced | mean share |")
    print("|---|---:|---|---:|---:|")
    for label, measure in measures:
        for name in SYSTEMS:
            shares = [
                value
                for row in rows
                if row.reference is not None
                for value in measure(row.reference, row.results[name].structure or _EMPTY)
            ]
            if not shares:
                continue
            kept = sum(1 for value in shares if value >= REPRODUCED)
            print(
                f"| {label} | {len(shares)} | {name} | {kept / len(shares):.3f} "
                f"| {statistics.fmean(shares):.3f} |"
            )


_EMPTY = Structure((), (), ())


def report(rows: list[PageRow], per_page: Path | None) -> None:
    """Every table of this corpus, and the per-page scores when asked."""
    overall_table(rows)
    type_table(rows)
    fidelity_table(rows)
    losses_table(rows)
    if per_page:
        write_per_page(rows, per_page)
        print(f"\nper-page scores: {per_page}")
