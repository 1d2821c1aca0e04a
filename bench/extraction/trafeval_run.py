"""trafilatura's evaluation set (945 real pages, mostly news and blog articles; see
``tests/trafeval.py`` for the layout and the scoring), scored the way trafilatura scores it:
segment F1 with precision and recall, ``with`` segments found, ``without`` segments leaked, and
the readers' comment segments leaked with comments left out and found with them asked for; CPU
pages per second of the runs without comments."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from bench.extraction.runner import SYSTEMS, extract, order, pagecast_can_add_comments
from tests.trafeval import (
    EvalPage,
    SegmentScore,
    load_labels,
    load_page,
    precision_recall,
    score_page,
    segment_f1,
)
from tests.wcxb import markdown_to_text

PROGRESS_EVERY = 100
WORST = 15
"""How many of the pages leaking the most ``without`` segments against trafilatura are listed."""


@dataclass
class Result:
    """One system on one page: comments left out, and (on pages with comment segments)
    asked for."""

    score: SegmentScore
    cpu_seconds: float
    failure: str = ""
    with_comments: SegmentScore | None = None


@dataclass
class PageRow:
    url: str
    file: str
    results: dict[str, Result] = field(default_factory=dict)


def score(name: str, page: EvalPage, *, comments: bool) -> tuple[SegmentScore, float, str]:
    done = extract(name, page.html, page.url, comments=comments)
    return score_page(markdown_to_text(done.markdown), page), done.cpu_seconds, done.failure


def run(data: Path, limit: int | None) -> list[PageRow]:
    """Both systems on every page (the first ``limit``), comments out; again with comments
    asked for on the pages that have comment segments (Pagecast only when it can)."""
    labels = list(load_labels(data).items())
    labels = [
        (url, label) for url, label in labels if (data / "html" / f"{label['file']}.gz").is_file()
    ]
    labels = labels[:limit] if limit is not None else labels
    asks = {"pagecast": pagecast_can_add_comments(), "trafilatura": True}
    rows = []
    for n, (url, label) in enumerate(labels):
        try:
            page = load_page(data, url, label)
        except (OSError, ValueError, KeyError) as exc:  # a broken file is named, not fatal
            print(f"  {label.get('file')}: not loaded ({type(exc).__name__})", file=sys.stderr)
            continue
        row = PageRow(url, page.file)
        for name in order(n):
            found, cpu, failure = score(name, page, comments=False)
            result = Result(found, cpu, failure)
            if page.comments and asks[name]:
                result.with_comments = score(name, page, comments=True)[0]
            row.results[name] = result
        rows.append(row)
        if (n + 1) % PROGRESS_EVERY == 0:
            print(f"  {n + 1}/{len(labels)} pages", file=sys.stderr, flush=True)
    return rows


def report(rows: list[PageRow]) -> None:
    seconds = {name: sum(row.results[name].cpu_seconds for row in rows) for name in SYSTEMS}
    rate = {name: len(rows) / seconds[name] if seconds[name] else 0.0 for name in SYSTEMS}
    print(f"\n## trafilatura-eval\n\n{len(rows)} pages\n")
    print(
        "| system | segment F1 | precision | recall | `with` found | `without` leaked "
        "| comments leaked (off) | comments found (on) | empty | failed | CPU pages/s "
        "| vs trafilatura |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in SYSTEMS:
        scores = [row.results[name].score for row in rows]
        precision, recall = precision_recall(scores)
        found = sum(s.with_found for s in scores)
        wanted = sum(s.with_total for s in scores)
        leaked = sum(s.without_leaked for s in scores)
        unwanted = sum(s.without_total for s in scores)
        comments = sum(s.comments_found for s in scores)
        comments_total = sum(s.comments_total for s in scores)
        asked = [row.results[name].with_comments for row in rows]
        if any(item is not None for item in asked):
            got = sum(item.comments_found for item in asked if item is not None)
            on = f"{got} of {comments_total} ({got / comments_total:.3f})"
        else:
            on = "not asked (no such option)"
        empty = sum(1 for s in scores if s.empty)
        failed = sum(1 for row in rows if row.results[name].failure)
        ratio = rate[name] / rate["trafilatura"] if rate["trafilatura"] else 0.0
        print(
            f"| {name} | {segment_f1(scores):.3f} | {precision:.3f} | {recall:.3f} "
            f"| {found / wanted:.3f} | {leaked / unwanted:.3f} "
            f"| {comments} of {comments_total} | {on} | {empty} | {failed} "
            f"| {rate[name]:.1f} | {ratio:.2f} |"
        )
    leaks_table(rows)


def leaks_table(rows: list[PageRow]) -> None:
    def extra(row: PageRow) -> int:
        ours, theirs = row.results["pagecast"].score, row.results["trafilatura"].score
        return (
            ours.without_leaked
            - theirs.without_leaked
            + theirs.with_found
            - ours.with_found
            + ours.comments_found
            - theirs.comments_found
        )

    worst = sorted(rows, key=lambda row: (-extra(row), row.file))[:WORST]
    print(f"\nThe {WORST} pages where Pagecast loses the most segments to trafilatura\n")
    print("| file | with found P / t | without leaked P / t | comments leaked P / t |")
    print("|---|---:|---:|---:|")
    for row in worst:
        ours, theirs = row.results["pagecast"].score, row.results["trafilatura"].score
        print(
            f"| {row.file} | {ours.with_found} / {theirs.with_found} of {ours.with_total} "
            f"| {ours.without_leaked} / {theirs.without_leaked} of {ours.without_total} "
            f"| {ours.comments_found} / {theirs.comments_found} of {ours.comments_total} |"
        )
