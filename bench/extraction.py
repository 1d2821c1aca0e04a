"""Main-content extraction on real pages: Pagecast against trafilatura on WCXB's development set.

Every page of the set (1,497 real pages in seven types, with hand-reviewed main content; see
``tests/wcxb.py`` for the layout and the scoring) goes through both extractors in this process,
one after the other, the order alternating from page to page so that neither always runs on a
warm cache:

- Pagecast: :func:`convert.markdown.pipeline.convert_page` with the default :class:`ConvertOptions`
  (main
  content only), its Markdown turned into text by :func:`tests.wcxb.markdown_to_text`;
- trafilatura: ``extract(html, url=..., output_format="markdown")`` with every other option at
  its default (``favor_precision`` and ``favor_recall`` off, comments and tables in, its
  fallback extractors on), through the same ``markdown_to_text``. Markdown rather than ``txt``
  so that both outputs carry the same kind of syntax and lose it through the same code: any
  quirk of the stripping falls on both.

Printed as Markdown tables: word F1 overall and per page type, the shares of ``with`` snippets
found and ``without`` snippets leaked (over all snippets of the pages scored), empty results on
pages with readable text (and how many of Pagecast's it flags as app shells, which the service
would render in Chromium first), failures (an exception or more than ``PAGE_SECONDS`` on one
page; the page then scores as an empty result), CPU pages per second of each
(``time.process_time`` around each call), and the pages where Pagecast's F1 falls furthest
below trafilatura's.

    python -m bench.extraction [--data DIR] [--limit N] [--types article,forum] [--per-page FILE]

trafilatura comes from bench/requirements.txt, for comparison only; Pagecast never imports it.
"""

from __future__ import annotations

import argparse
import csv
import logging
import platform
import signal
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType

import lxml.etree
import trafilatura

from convert.markdown.pipeline import ConvertOptions, convert_page
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

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "wcxb-dev"
"""Where the development set is looked for when ``--data`` is not given."""
OPTIONS = ConvertOptions()
PAGE_SECONDS = 30.0
"""Wall-clock limit on one extraction of one page; past it the page counts as failed."""
WORST = 20
"""How many of the largest F1 losses against trafilatura are listed."""
PROGRESS_EVERY = 100
SYSTEMS = ("pagecast", "trafilatura")


def pagecast(page: WcxbPage) -> tuple[str, bool]:
    """The text, and whether Pagecast flags the page as an app shell (the service would render
    it in Chromium before converting; this bench converts the HTML as served)."""
    converted = convert_page(page.html, page.url, OPTIONS)
    return markdown_to_text(converted.markdown), converted.app_shell


def trafilatura_markdown(page: WcxbPage) -> tuple[str, bool]:
    extracted = trafilatura.extract(page.html, url=page.url or None, output_format="markdown")
    return markdown_to_text(extracted or ""), False


EXTRACTORS: dict[str, Callable[[WcxbPage], tuple[str, bool]]] = {
    "pagecast": pagecast,
    "trafilatura": trafilatura_markdown,
}


class PageTimeoutError(Exception):
    """One extraction ran past :data:`PAGE_SECONDS`."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`PageTimeoutError` in the main thread after ``seconds`` of wall-clock time."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise PageTimeoutError

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Result:
    """One system on one page."""

    score: PageScore
    cpu_seconds: float
    failure: str = ""
    app_shell: bool = False


@dataclass
class PageRow:
    page: WcxbPage
    results: dict[str, Result] = field(default_factory=dict)


def run_one(name: str, page: WcxbPage) -> Result:
    failure, text, app_shell = "", "", False
    started = time.process_time()
    try:
        with time_limit(PAGE_SECONDS):
            text, app_shell = EXTRACTORS[name](page)
    except PageTimeoutError:
        failure = "timeout"
    except Exception as exc:  # counted per system; the page scores as an empty result
        failure = type(exc).__name__
    cpu = time.process_time() - started
    return Result(score_page(text, page), cpu, failure, app_shell)


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
        except (OSError, ValueError, KeyError) as exc:  # a broken file is named, not fatal
            print(f"  {file_id}: not loaded ({type(exc).__name__})", file=sys.stderr)
            continue
        row = PageRow(replace(page, html=""))  # the tables need the labels, not the page
        order = SYSTEMS if n % 2 == 0 else SYSTEMS[::-1]
        for name in order:
            row.results[name] = run_one(name, page)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the WCXB directory")
    parser.add_argument("--limit", type=int, help="only the first N pages (after --types)")
    parser.add_argument("--types", help="comma-separated page types, e.g. article,forum")
    parser.add_argument("--per-page", type=Path, help="write every page's scores to this CSV")
    args = parser.parse_args()
    types = {kind.strip() for kind in args.types.split(",")} if args.types else None
    if types and not types <= set(PAGE_TYPES):
        parser.error(f"--types: unknown {sorted(types - set(PAGE_TYPES))}")
    if not (args.data / "ground-truth").is_dir():
        parser.error(f"--data: no WCXB set at {args.data}")
    logging.basicConfig(level=logging.ERROR)  # trafilatura warns about every odd page
    ids = selected_ids(args.data, types, args.limit)
    print(
        f"Python {platform.python_version()}, lxml {lxml.etree.__version__}, "
        f"trafilatura {trafilatura.__version__}; {len(ids)} pages from {args.data.name}",
        flush=True,
    )
    started = time.perf_counter()
    rows = run(args.data, ids)
    print(f"({time.perf_counter() - started:.0f} s wall clock)")
    overall_table(rows)
    type_table(rows)
    losses_table(rows)
    if args.per_page:
        write_per_page(rows, args.per_page)
        print(f"\nper-page scores: {args.per_page}")


if __name__ == "__main__":
    main()
