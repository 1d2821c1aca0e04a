"""Page metadata on real pages and on the fixture set: Pagecast's reader (and trafilatura's, as
a peer) against WCXB's development set for title, author and date, and against Pagecast's own
fixture pages for every field.

WCXB (``tests/wcxb.py`` has the layout) labels each page with the ``title``, ``author`` and
``publish_date`` a reader sees. Scored here:

- title: equal after normalisation (NFKC, case folded, quotes straightened, only the words
  kept: punctuation, symbols such as ™ and the spacing around them do not count), over the
  pages that have a title;
- author: the same names (order, joining words and case aside: "A, B and C" is "C, A, B"), over
  the pages that state an author;
- date: the date part of ``published_at`` equals ``publish_date``, over the pages that state one;
- besides: how many pages got an author or a date that their labels do not have.

Time: ``time.process_time`` around :func:`convert.metadata.read.read_metadata` alone, on the page
already parsed (parsing is the conversion's, shared with every other step), ``--repeat`` times
per page (default 5): the first run's mean, and the mean, median, p95 and maximum of each
page's fastest run, which is what the step costs when the machine's other work does not stretch
it (the shared machines here swing by a third between runs). trafilatura's
``extract_metadata`` parses the page itself, so its time is not comparable and not shown; its
scores are. The reader this one replaced (``--baseline``, a git revision) is timed beside it
on the same parsed pages, interleaved, so that what the step adds is measured in the same
conditions.

    python -m bench.metadata [--data DIR] [--limit N] [--repeat N] [--baseline REV] [--no-peer]
        [--per-page FILE] [--metascraper [--disagreements FILE]]

``--metascraper`` adds every field's agreement with metascraper (:mod:`bench.metadata_agreement`).

trafilatura comes from bench/requirements.txt, for comparison only; Pagecast never imports it.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import html
import platform
import re
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import lxml.etree
import lxml.html

from bench import metadata_agreement as agreement
from convert.html.document import read_document
from convert.metadata.fields import FIELDS, PageMetadata
from convert.metadata.read import page_metadata, read_metadata
from convert.metadata.values import comparable, same_names
from tests.metadata_fixtures import field_accuracy, field_misses, fixture_pages
from tests.wcxb import file_ids, page_type, read_label

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "wcxb-dev"
"""Where the development set is looked for when ``--data`` is not given."""
TARGETS = {"title": 0.95, "author": 0.85, "date": 0.90}
"""The shares each score should reach."""
BASELINE = "5edaa1d"
"""The revision whose metadata reader (Open Graph, Twitter, JSON-LD and meta tags, first found
wins) this one replaced: timed beside it, to show what the step adds."""
MS_TARGET = 1.0
"""Mean milliseconds per page the metadata step should stay under."""
PROGRESS_EVERY = 250
_WORD = re.compile(r"\w+")


@dataclass
class Labels:
    """What a page's labels say (None: the page does not state it)."""

    file_id: str
    page_type: str
    title: str | None
    author: str | None
    date: str | None


@dataclass
class Row:
    labels: Labels
    got: dict[str, dict[str, str]] = field(default_factory=dict)
    """System -> title, author, date."""
    ms: float = 0.0
    """The fastest run's CPU milliseconds."""
    first_ms: float = 0.0
    base_ms: float = 0.0
    """The replaced reader's fastest run (0: not measured)."""
    base_first_ms: float = 0.0
    parse_ms: float = 0.0
    """Parsing the page (not part of the step): how loaded the machine was, for comparison."""
    url: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    """Every field Pagecast gave (for the agreement with metascraper)."""


def title_words(text: str) -> str:
    """A title as titles are compared: its words, normalised."""
    return " ".join(_WORD.findall(comparable(html.unescape(text))))


def title_match(got: str, want: str) -> bool:
    return bool(got) and title_words(got) == title_words(want)


def author_match(got: str, want: str) -> bool:
    return bool(got) and (title_words(got) == title_words(want) or same_names(got, want))


def date_match(got: str, want: str) -> bool:
    return got[:10] == want


MATCHES: dict[str, Callable[[str, str], bool]] = {
    "title": title_match,
    "author": author_match,
    "date": date_match,
}


Reader = Callable[[lxml.html.HtmlElement, str], object]


def baseline_reader(revision: str) -> Reader | None:
    """``page_metadata`` of ``convert/metadata/read.py`` as it was at ``revision`` (the reader this
    one replaced), loaded from git; None when git or the revision is not there."""
    try:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{revision}:convert/metadata/read.py"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    module = types.ModuleType("baseline_metadata")
    # The code is this repository's own, from its history.
    exec(compile(source, f"{revision}:convert/metadata/read.py", "exec"), module.__dict__)
    reader: Reader = module.page_metadata
    return reader


def timed(read: Reader, root: lxml.html.HtmlElement, url: str) -> tuple[object, float]:
    started = time.process_time()
    found = read(root, url)
    return found, time.process_time() - started


def pagecast(
    page_html: str, url: str, repeat: int, baseline: Reader | None
) -> tuple[PageMetadata, dict[str, list[float]]]:
    """The fields, and CPU seconds: ``parse``, and ``step`` and ``baseline`` for each of
    ``repeat`` runs (the two readers alternating, each going first on every other run)."""
    started = time.process_time()
    root = read_document(page_html).root
    seconds: dict[str, list[float]] = {
        "parse": [time.process_time() - started],
        "step": [],
        "baseline": [],
    }
    found = None
    for turn in range(repeat):
        readers: list[tuple[str, Reader]] = [("step", read_metadata)]
        if baseline is not None:
            readers.insert(turn % 2, ("baseline", baseline))
        for name, read in readers:
            result, elapsed = timed(read, root, url)
            seconds[name].append(elapsed)
            if name == "step":
                found = result
    assert isinstance(found, PageMetadata)
    return found, seconds


def trafilatura_metadata(page_html: str, url: str) -> dict[str, str]:
    from trafilatura.metadata import extract_metadata  # noqa: PLC0415 (a peer, optional)

    try:
        found = extract_metadata(page_html, default_url=url)
    except Exception:  # a peer's failure on one page scores as nothing found
        found = None
    if found is None:
        return {"title": "", "author": "", "date": ""}
    return {"title": found.title or "", "author": found.author or "", "date": found.date or ""}


def run(data: Path, ids: list[str], peer: bool, repeat: int, baseline: Reader | None) -> list[Row]:
    rows = []
    for n, file_id in enumerate(ids):
        label = read_label(data, file_id)
        truth = label["ground_truth"]
        raw = gzip.decompress((data / "html" / f"{file_id}.html.gz").read_bytes())
        page_html = raw.decode("utf-8", errors="replace")
        url = str(label.get("url") or truth.get("url") or "")
        labels = Labels(
            file_id,
            page_type(label),
            truth.get("title") or None,
            truth.get("author") or None,
            truth.get("publish_date") or None,
        )
        row = Row(labels, url=url)
        found, seconds = pagecast(page_html, url, repeat, baseline)
        row.fields = found.as_dict()
        row.got["pagecast"] = {
            "title": found.title,
            "author": found.author,
            "date": found.published_at,
        }
        row.parse_ms = seconds["parse"][0] * 1000
        row.ms, row.first_ms = min(seconds["step"]) * 1000, seconds["step"][0] * 1000
        if seconds["baseline"]:
            row.base_ms = min(seconds["baseline"]) * 1000
            row.base_first_ms = seconds["baseline"][0] * 1000
        if peer:
            row.got["trafilatura"] = trafilatura_metadata(page_html, url)
        rows.append(row)
        if (n + 1) % PROGRESS_EVERY == 0:
            print(f"  {n + 1}/{len(ids)} pages", file=sys.stderr, flush=True)
    return rows


def score(rows: list[Row], system: str, name: str) -> tuple[int, int, int]:
    """(right, stated, given without a label) for one field."""
    right = stated = extra = 0
    for row in rows:
        want = getattr(row.labels, name)
        got = row.got[system][name]
        if want:
            stated += 1
            right += MATCHES[name](got, want)
        elif got:
            extra += 1
    return right, stated, extra


def share(right: int, total: int) -> str:
    return f"{right / total:.3f}" if total else "-"


def wcxb_tables(rows: list[Row], systems: list[str]) -> None:
    print(
        "\n| system | title | author | date | author given, none stated | date given, none stated |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for system in systems:
        cells = []
        extras = []
        for name in ("title", "author", "date"):
            right, stated, extra = score(rows, system, name)
            cells.append(f"{share(right, stated)} ({right}/{stated})")
            if name != "title":
                extras.append(str(extra))
        print(f"| {system} | {' | '.join(cells)} | {' | '.join(extras)} |")
    targets = ", ".join(f"{name} {value:.2f}" for name, value in TARGETS.items())
    print(f"\ntargets: {targets}")
    kinds = sorted({row.labels.page_type for row in rows})
    print("\n| type | pages | title | author | date |")
    print("|---|---:|---:|---:|---:|")
    for kind in kinds:
        picked = [row for row in rows if row.labels.page_type == kind]
        cells = [
            share(*score(picked, "pagecast", name)[:2]) for name in ("title", "author", "date")
        ]
        print(f"| {kind} | {len(picked)} | {' | '.join(cells)} |")


def time_table(rows: list[Row], repeat: int) -> None:
    times = sorted(row.ms for row in rows)
    p95 = times[int(0.95 * (len(times) - 1))]
    mean = statistics.fmean(times)
    verdict = "under" if mean < MS_TARGET else "over"
    first = statistics.fmean(row.first_ms for row in rows)
    parse = statistics.fmean(row.parse_ms for row in rows)
    print(
        f"\nmetadata step (read_metadata on the parsed page), CPU ms per page, fastest of "
        f"{repeat}: mean {mean:.3f}, median {statistics.median(times):.3f}, p95 {p95:.3f}, "
        f"max {times[-1]:.3f} ({verdict} the {MS_TARGET:g} ms target); first run's mean "
        f"{first:.3f}; parsing the page (for scale, not part of the step) {parse:.3f}"
    )
    if any(row.base_ms for row in rows):
        base = statistics.fmean(row.base_ms for row in rows)
        base_first = statistics.fmean(row.base_first_ms for row in rows)
        print(
            f"the reader it replaced, same pages, interleaved: fastest {base:.3f}, first run "
            f"{base_first:.3f}; the step adds {mean - base:.3f} (fastest) and "
            f"{first - base_first:.3f} (first run) ms per page (target: under {MS_TARGET:g})"
        )


def fixture_table() -> None:
    pages = fixture_pages()
    results = [(page, page_metadata(read_document(page.html).root, page.url)) for page in pages]
    accuracy = field_accuracy(results)
    print(f"\nFixture set: {len(pages)} pages (tests/metadata_pages)\n")
    print("| " + " | ".join(FIELDS) + " |")
    print("|" + "---:|" * len(FIELDS))
    print("| " + " | ".join(f"{accuracy[name]:.3f}" for name in FIELDS) + " |")
    for page, got in results:
        for name, (have, want) in field_misses(got, page).items():
            print(f"- {page.name} {name}: got {have!r}, expected {want!r}")


def metascraper_table(data: Path, rows: list[Row], disagreements: Path | None) -> None:
    version = agreement.ensure_installed()
    theirs = agreement.metascraper_fields(
        data, [(row.labels.file_id, row.url) for row in rows], version
    )
    print(
        f"\nmetascraper {version} (node {agreement.node_version()}), "
        "its rule bundles for every field"
    )
    pairs = [(row.labels.file_id, row.fields, theirs[row.labels.file_id]) for row in rows]
    agreement.agreement_table(pairs)
    times = [float(theirs[row.labels.file_id].get("ms", 0)) for row in rows]
    print(
        "metascraper's own time (wall clock, parsing included): "
        f"mean {statistics.fmean(times):.1f} ms"
    )
    if disagreements:
        agreement.write_disagreements(pairs, disagreements)
        print(f"disagreements: {disagreements}")


def write_per_page(rows: list[Row], path: Path, systems: list[str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        header = ["file_id", "type", "best_ms"]
        for name in ("title", "author", "date"):
            header += [f"{name}_label"] + [f"{name}_{system}" for system in systems]
        writer.writerow(header)
        for row in rows:
            line: list[object] = [row.labels.file_id, row.labels.page_type, f"{row.ms:.3f}"]
            for name in ("title", "author", "date"):
                line.append(getattr(row.labels, name) or "")
                line += [row.got[system][name] for system in systems]
            writer.writerow(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the WCXB directory")
    parser.add_argument("--limit", type=int, help="only the first N pages")
    parser.add_argument("--no-peer", action="store_true", help="leave trafilatura out")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per page")
    parser.add_argument(
        "--baseline",
        default=BASELINE,
        help="git revision whose convert/metadata/read.py is timed beside ('' for none)",
    )
    parser.add_argument("--per-page", type=Path, help="write every page's fields to this CSV")
    parser.add_argument(
        "--metascraper",
        action="store_true",
        help="also score agreement with metascraper on every field (installs it on first use)",
    )
    parser.add_argument(
        "--disagreements", type=Path, help="with --metascraper: write each disagreement (JSONL)"
    )
    args = parser.parse_args()
    if not (args.data / "ground-truth").is_dir():
        parser.error(f"--data: no WCXB set at {args.data}")
    ids = file_ids(args.data)[: args.limit]
    systems = ["pagecast"] if args.no_peer else ["pagecast", "trafilatura"]
    print(
        f"Python {platform.python_version()}, lxml {lxml.etree.__version__}; "
        f"{len(ids)} pages from {args.data.name}",
        flush=True,
    )
    started = time.perf_counter()
    baseline = baseline_reader(args.baseline) if args.baseline else None
    if args.baseline and baseline is None:
        print(f"(no baseline: revision {args.baseline} not found)", flush=True)
    rows = run(args.data, ids, not args.no_peer, max(args.repeat, 1), baseline)
    print(f"({time.perf_counter() - started:.0f} s wall clock)")
    wcxb_tables(rows, systems)
    time_table(rows, max(args.repeat, 1))
    fixture_table()
    if args.metascraper:
        metascraper_table(args.data, rows, args.disagreements)
    if args.per_page:
        write_per_page(rows, args.per_page, systems)
        print(f"\nper-page fields: {args.per_page}")


if __name__ == "__main__":
    main()
