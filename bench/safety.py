"""The prompt-injection scan (``ai_sanitize``) on real pages: hidden instructions planted with
each hiding technique, the false alarms on untouched pages, and what the scan costs.

Attack pages are built here: each text of ``bench/safety_attacks.txt`` (instructions of the kind
indirect injections hide in web pages, written for this benchmark: links or contact details to pass
on, false alerts, language and format demands, product and opinion steering, changed tasks, data
requests, text addressed to an assistant; English, French, German, Spanish and a few more) is
planted with every hiding technique of :data:`TECHNIQUES` into a real page of WCXB's development set
(1,497 pages, none an attack; ``tests/wcxb.py`` has the layout), after the page's longest paragraph,
so that visible techniques land in the main content. Each (text, technique) pair is planted one way,
alternating: as written, or behind an override framing ("Ignore all previous instructions..."), so
that every technique gets half the texts each way (``--both-framings`` plants both). Host pages
rotate over a fixed sample of the set (every ``--host-every``-th page). Every page goes through
:func:`convert.markdown.pipeline.convert_page` with ``ai_sanitize`` in warn mode and the report's
level is read: flagged means medium or high.

Bare tasks: each text of ``bench/safety_tasks.txt`` (a second attack set, written apart from the
scan's rules: plain requests of many kinds and lengths, with no override framing and no mention of
an assistant, in the scan's languages) is planted the same way with every technique, never framed,
and reported per technique beside the first set.

False alarms: every untouched page of the set, the same conversion; the share flagged medium or
high and the share high; the same for the pages of trafilatura's evaluation set
(``--trafeval``, when it is there).

Sanitizing: on a sample of the attack pages (``--sanitize-every``), sanitize mode's Markdown is
checked for the planted text (its longest word run, which must be gone) and for the page's own
words (the share of the untouched page's Markdown words kept).

Cost: ``time.process_time`` of the whole conversion without the scan and with it (warn mode),
alternating, fastest of three runs each, on every ``--time-every``-th untouched page; before
each conversion with the scan, what the scan remembers of texts it has judged is forgotten, so
that the page is judged as new (the words it has looked up stay, as in a running server). What
the scan adds: the difference, as a share of the conversion without it, over the sum of the
pages (the average page), and the median of the per-page shares.

    python -m bench.safety [--data DIR] [--trafeval DIR] [--limit N] [--host-every N]
        [--texts-every N] [--sanitize-every N] [--time-every N] [--workers N] [--show N]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
import zlib
from collections import Counter
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

from convert.markdown.pipeline import ConvertOptions, convert_page
from convert.safety.analysis import analyse, plainly_clear
from convert.safety.intent import intent
from tests import trafeval
from tests.hidden_attacks import FRAMINGS, TECHNIQUES, ZERO_WIDTH, plant
from tests.wcxb import file_ids, load_page, words

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "wcxb-dev"
"""Where the development set is looked for when ``--data`` is not given."""
TRAFEVAL = ROOT.parent / "shared" / "data" / "trafilatura-eval"
"""Where trafilatura's evaluation set is looked for when ``--trafeval`` is not given."""
ATTACKS = Path(__file__).with_name("safety_attacks.txt")
TASKS = Path(__file__).with_name("safety_tasks.txt")
WARN = ConvertOptions(safety_mode="warn")
SANITIZE = ConvertOptions(safety_mode="sanitize")
PLAIN = ConvertOptions()
_TIMED_RUNS = 3


def forget_page_texts() -> None:
    """Forget the texts the scan has judged (its memo caches), not the words it looked up."""
    for remembered in (analyse, plainly_clear, intent):
        remembered.cache_clear()  # type: ignore[union-attr]


FLAGGED = ("medium", "high")


def attack_texts(path: Path = ATTACKS) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _marker(text: str) -> str:
    """A run of the text's words that sanitizing must have removed from the Markdown."""
    tokens = text.split()
    run = max(
        (tokens[i : i + 4] for i in range(max(1, len(tokens) - 3))), key=lambda r: len(" ".join(r))
    )
    return " ".join(run)


@dataclass(frozen=True)
class Case:
    technique: str
    framed: bool
    text: str
    host: str
    bare: bool = False
    """A text of the bare-task set (:data:`TASKS`)."""


@dataclass(frozen=True)
class Outcome:
    case: Case
    level: str
    score: float
    removed: bool | None = None
    kept: float | None = None


_PAGES: dict[str, tuple[str, str]] = {}


def _host(data: Path, file_id: str) -> tuple[str, str]:
    if file_id not in _PAGES:
        page = load_page(data, file_id)
        _PAGES[file_id] = (page.html, page.url)
    return _PAGES[file_id]


def run_case(args: tuple[Path, Case, bool]) -> Outcome:
    data, case, sanitize = args
    page_html, url = _host(data, case.host)
    text = (
        f"{FRAMINGS[zlib.crc32(case.text.encode()) % len(FRAMINGS)]} {case.text}"
        if case.framed
        else case.text
    )
    planted = plant(page_html, TECHNIQUES[case.technique](text))
    warned = convert_page(planted, url, WARN)
    report = warned.ai_safety or {}
    removed = kept = None
    if sanitize:
        cleaned = convert_page(planted, url, SANITIZE).markdown
        removed = _marker(case.text).lower() not in cleaned.replace(ZERO_WIDTH, "").lower()
        own = Counter(words(convert_page(page_html, url, PLAIN).markdown))
        have = Counter(words(cleaned))
        kept = sum((own & have).values()) / max(1, sum(own.values()))
    return Outcome(
        case, str(report.get("risk_level")), float(report.get("risk_score", 0)), removed, kept
    )


def _clean_page(data: Path, key: str) -> tuple[str, str]:
    """An untouched page's HTML and URL: a WCXB file id, or ``url`` of trafilatura's set."""
    if (data / "evaldata.json").is_file():
        labels = _trafeval_labels(data)
        page = trafeval.load_page(data, key, labels[key])
        return page.html, page.url
    wcxb = load_page(data, key)
    return wcxb.html, wcxb.url


_LABELS: dict[Path, dict[str, dict[str, object]]] = {}


def _trafeval_labels(data: Path) -> dict[str, dict[str, object]]:
    if data not in _LABELS:
        _LABELS[data] = trafeval.load_labels(data)
    return _LABELS[data]


def trafeval_urls(data: Path) -> list[str]:
    """The URLs of trafilatura's set whose HTML the directory holds."""
    return [
        url
        for url, label in _trafeval_labels(data).items()
        if (data / "html" / f"{label['file']}.gz").is_file()
    ]


def run_clean(args: tuple[Path, str, bool]) -> tuple[str, str, float, list[str], float, float]:
    """(id, level, score, strongest signals, conversion seconds, scan seconds)."""
    data, file_id, timed = args
    html, url = _clean_page(data, file_id)
    converted = convert_page(html, url, WARN)
    report = converted.ai_safety or {}
    signals = [
        f"{s['type']}@{s['location']} {s['severity']}: {s['sample'][:70]}"
        for s in report.get("signals", [])[:3]  # type: ignore[index]
    ]
    convert_time = scan_time = 0.0
    if timed:
        plain_times, warn_times = [], []
        for _ in range(_TIMED_RUNS):
            started = time.process_time()
            convert_page(html, url, PLAIN)
            plain_times.append(time.process_time() - started)
            forget_page_texts()
            started = time.process_time()
            convert_page(html, url, WARN)
            warn_times.append(time.process_time() - started)
        convert_time = min(plain_times)
        scan_time = max(0.0, min(warn_times) - convert_time)
    level = str(report.get("risk_level"))
    return file_id, level, float(report.get("risk_score", 0)), signals, convert_time, scan_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument(
        "--trafeval", type=Path, default=TRAFEVAL, help="trafilatura's evaluation set (if there)"
    )
    parser.add_argument("--limit", type=int, default=0, help="untouched pages (0: all)")
    parser.add_argument("--host-every", type=int, default=25)
    parser.add_argument("--texts-every", type=int, default=1)
    parser.add_argument("--sanitize-every", type=int, default=20)
    parser.add_argument("--time-every", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=10, help="misses and false alarms listed")
    parser.add_argument(
        "--both-framings",
        action="store_true",
        help="plant every text both ways with every technique (default: alternate)",
    )
    parser.add_argument("--no-clean", action="store_true", help="attack pages only")
    parser.add_argument("--no-attacks", action="store_true", help="untouched pages only")
    parser.add_argument("--no-tasks", action="store_true", help="leave the bare-task set out")
    parser.add_argument("--tasks", type=Path, default=TASKS, help="the bare-task set")
    args = parser.parse_args()
    if not (args.data / "html").is_dir():
        sys.exit(f"no WCXB pages in {args.data} (give --data)")
    ids = file_ids(args.data)
    hosts = ids[:: args.host_every]
    texts = attack_texts()[:: args.texts_every]
    tasks = [] if args.no_tasks else attack_texts(args.tasks)[:: args.texts_every]
    print(
        f"# Prompt-injection scan: {len(texts)} hidden-instruction texts x "
        f"{len(TECHNIQUES)} techniques, framed or not, and {len(tasks)} bare tasks x "
        f"{len(TECHNIQUES)} techniques, on {len(hosts)} host pages; "
        f"{platform.python_version()}, {platform.machine()}"
    )
    with Pool(args.workers) as pool:
        if not args.no_attacks:
            cases = [
                (
                    args.data,
                    Case(technique, framed, text, hosts[(n + k) % len(hosts)]),
                    (n + k) % args.sanitize_every == 0,
                )
                for n, text in enumerate(texts)
                for k, technique in enumerate(TECHNIQUES)
                for framed in ((False, True) if args.both_framings else ((n + k) % 2 == 1,))
            ]
            cases += [
                (
                    args.data,
                    Case(technique, False, text, hosts[(n + k) % len(hosts)], bare=True),
                    (n + k) % args.sanitize_every == 0,
                )
                for n, text in enumerate(tasks)
                for k, technique in enumerate(TECHNIQUES)
            ]
            outcomes = pool.map(run_case, cases, chunksize=4)
            _attack_table([o for o in outcomes if not o.case.bare], args.show)
            if tasks:
                _bare_table([o for o in outcomes if o.case.bare], args.show)
        if not args.no_clean:
            chosen = ids[: args.limit] if args.limit else ids
            jobs = [(args.data, fid, n % args.time_every == 0) for n, fid in enumerate(chosen)]
            _clean_table("WCXB", pool.map(run_clean, jobs, chunksize=4), args.show)
            if (args.trafeval / "evaldata.json").is_file():
                urls = trafeval_urls(args.trafeval)
                urls = urls[: args.limit] if args.limit else urls
                jobs = [(args.trafeval, url, False) for url in urls]
                _clean_table("trafilatura-eval", pool.map(run_clean, jobs, chunksize=4), args.show)


def _attack_table(outcomes: list[Outcome], show: int) -> None:
    print("\n| technique | unframed flagged | unframed high | framed flagged | framed high |")
    print("|---|---:|---:|---:|---:|")
    rows: dict[str, dict[bool, list[str]]] = {}
    for outcome in outcomes:
        rows.setdefault(outcome.case.technique, {False: [], True: []})[outcome.case.framed].append(
            outcome.level
        )
    totals: dict[bool, list[str]] = {False: [], True: []}
    for technique, by_framing in rows.items():
        cells = []
        for framed in (False, True):
            levels = by_framing[framed]
            totals[framed].extend(levels)
            cells.append(_share(levels, FLAGGED))
            cells.append(_share(levels, ("high",)))
        print(f"| {technique} | " + " | ".join(cells) + " |")
    print(
        f"| **all** | {_share(totals[False], FLAGGED)} | {_share(totals[False], ('high',))} | "
        f"{_share(totals[True], FLAGGED)} | {_share(totals[True], ('high',))} |"
    )
    _sanitized([o for o in outcomes if o.removed is not None], "attack pages")
    misses = [o for o in outcomes if not o.case.framed and o.level not in FLAGGED]
    _misses(misses, "Unframed misses", show)


def _sanitized(sampled: list[Outcome], what: str) -> None:
    """Sanitize mode's line over the sampled pages: planted text removed, own words kept."""
    if sampled:
        removed = sum(bool(o.removed) for o in sampled) / len(sampled)
        kept = statistics.mean(o.kept or 0.0 for o in sampled)
        print(
            f"\nSanitize mode on {len(sampled)} {what}: planted text removed from "
            f"{removed:.3f}, page words kept {kept:.3f} (mean share of the page's own words)."
        )


def _misses(misses: list[Outcome], title: str, show: int) -> None:
    if misses and show:
        print(f"\n{title} (first ones):")
        for outcome in misses[:show]:
            print(f"- {outcome.case.technique}: {outcome.case.text} ({outcome.score})")


def _bare_table(outcomes: list[Outcome], show: int) -> None:
    print("\nBare tasks (the held-out set, never framed):\n")
    print("| technique | flagged | high |")
    print("|---|---:|---:|")
    rows: dict[str, list[str]] = {}
    for outcome in outcomes:
        rows.setdefault(outcome.case.technique, []).append(outcome.level)
    for technique, levels in rows.items():
        print(f"| {technique} | {_share(levels, FLAGGED)} | {_share(levels, ('high',))} |")
    levels = [outcome.level for outcome in outcomes]
    print(f"| **all** | {_share(levels, FLAGGED)} | {_share(levels, ('high',))} |")
    flagged = [o for o in outcomes if o.removed is not None and o.level in FLAGGED]
    _sanitized(flagged, "flagged bare-task pages")
    _misses([o for o in outcomes if o.level not in FLAGGED], "Bare-task misses", show)


def _clean_table(
    name: str, results: list[tuple[str, str, float, list[str], float, float]], show: int
) -> None:
    levels = [level for _, level, *_ in results]
    print(
        f"\nUntouched pages of {name}: {len(levels)}; flagged medium or high "
        f"{_share(levels, FLAGGED)}, high {_share(levels, ('high',))} ({Counter(levels)})"
    )
    timed = [(c, s) for *_, c, s in results if c > 0]
    if timed:
        convert_total = sum(c for c, _ in timed)
        scan_total = sum(s for _, s in timed)
        shares = [s / c for c, s in timed]
        print(
            f"What the scan adds on {len(timed)} pages: "
            f"{1000 * scan_total / len(timed):.1f} ms per page, "
            f"{scan_total / convert_total:.1%} of the conversion's "
            f"{1000 * convert_total / len(timed):.1f} ms "
            f"(median page {statistics.median(shares):.1%})"
        )
    alarms = [r for r in results if r[1] in FLAGGED]
    for file_id, level, score, signals, *_ in alarms[:show]:
        print(f"- {file_id} {level} {score}: " + " | ".join(signals))


def _share(levels: list[str], wanted: tuple[str, ...]) -> str:
    if not levels:
        return "-"
    return f"{sum(level in wanted for level in levels) / len(levels):.3f}"


if __name__ == "__main__":
    main()
