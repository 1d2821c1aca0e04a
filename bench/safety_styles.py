"""The bare-task rate of the prompt-injection scan per style of asking.

Each text of a bare-task list whose styles are marked (``# --- style: NAME`` opens a style, as in
``bench/safety_tasks_styles.txt``) is planted with every hiding technique into a host page of
WCXB's development set, as :mod:`bench.safety` does, and the share flagged medium or high is
reported per style and per technique. ``--text-only`` reads each text alone instead (whether the
scan reads it as a request, whatever the hiding), which is quicker; ``--show N`` lists up to N
texts missed per style.

    python -m bench.safety_styles [--tasks FILE] [--data DIR] [--text-only] [--show N]
"""

from __future__ import annotations

import argparse
from multiprocessing import Pool
from pathlib import Path

from bench.safety import DATA, FLAGGED, Case, Outcome, run_case
from convert.safety.intent import intent
from tests.hidden_attacks import TECHNIQUES
from tests.wcxb import file_ids

STYLES = Path(__file__).with_name("safety_tasks_styles.txt")
_MARK = "# --- style:"


def styled_texts(path: Path) -> list[tuple[str, str]]:
    """The (style, text) pairs of a list; texts before any style mark are "-"."""
    style = "-"
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(_MARK):
            style = line.removeprefix(_MARK).strip()
        elif line.strip() and not line.startswith("#"):
            found.append((style, line.strip()))
    return found


def _rate(hits: list[bool]) -> str:
    return f"{sum(hits) / len(hits):.3f}" if hits else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=Path, default=STYLES)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--host-every", type=int, default=25)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--text-only", action="store_true", help="judge each text alone")
    parser.add_argument("--show", type=int, default=0, help="misses listed per style")
    args = parser.parse_args()
    texts = styled_texts(args.tasks)
    hits: dict[str, list[bool]] = {}
    by_technique: dict[str, list[bool]] = {}
    missed: dict[str, list[str]] = {}
    if args.text_only:
        for style, text in texts:
            hit = intent(text).instruction
            hits.setdefault(style, []).append(hit)
            if not hit:
                missed.setdefault(style, []).append(text)
    else:
        hosts = file_ids(args.data)[:: args.host_every]
        cases = [
            (args.data, Case(technique, False, text, hosts[(n + k) % len(hosts)], bare=True), False)
            for n, (_, text) in enumerate(texts)
            for k, technique in enumerate(TECHNIQUES)
        ]
        with Pool(args.workers) as pool:
            outcomes: list[Outcome] = pool.map(run_case, cases, chunksize=4)
        style_of = dict((text, style) for style, text in texts)
        for outcome in outcomes:
            hit = outcome.level in FLAGGED
            style = style_of[outcome.case.text]
            hits.setdefault(style, []).append(hit)
            by_technique.setdefault(outcome.case.technique, []).append(hit)
            if not hit and outcome.case.text not in missed.get(style, []):
                missed.setdefault(style, []).append(outcome.case.text)
    print(f"# Bare tasks per style: {len(texts)} texts of {args.tasks.name}")
    print("\n| style | texts | flagged |\n|---|---:|---:|")
    for style, found in hits.items():
        count = sum(1 for named, _ in texts if named == style)
        print(f"| {style} | {count} | {_rate(found)} |")
    print(
        f"| **all** | {len(texts)} | {_rate([hit for found in hits.values() for hit in found])} |"
    )
    if by_technique:
        print("\n| technique | flagged |\n|---|---:|")
        for technique, found in by_technique.items():
            print(f"| {technique} | {_rate(found)} |")
    for style, texts_missed in missed.items():
        if args.show:
            print(f"\n{style}:")
            for text in texts_missed[: args.show]:
                print(f"  {text}")


if __name__ == "__main__":
    main()
