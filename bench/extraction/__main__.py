"""``python -m bench.extraction``: see the package's docstring."""

from __future__ import annotations

import argparse
import logging
import platform
import time
from pathlib import Path

import lxml.etree
import trafilatura

from bench.extraction import trafeval_run, wcxb_run
from tests.wcxb import PAGE_TYPES

ROOT = Path(__file__).resolve().parent.parent.parent
DATA = ROOT.parent / "shared" / "data"
CORPORA = ("wcxb", "trafeval")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__package__ or "bench.extraction"))
    parser.add_argument("--corpus", default=",".join(CORPORA), help="wcxb, trafeval or both")
    parser.add_argument("--wcxb", type=Path, default=DATA / "wcxb-dev", help="the WCXB set")
    parser.add_argument(
        "--trafeval", type=Path, default=DATA / "trafilatura-eval", help="trafilatura's set"
    )
    parser.add_argument("--limit", type=int, help="only the first N pages of each corpus")
    parser.add_argument("--types", help="WCXB page types only, e.g. article,forum")
    parser.add_argument("--per-page", type=Path, help="write every WCXB page's scores to a CSV")
    args = parser.parse_args()
    corpora = {name.strip() for name in args.corpus.split(",") if name.strip()}
    if not corpora or not corpora <= set(CORPORA):
        parser.error(f"--corpus: one or both of {', '.join(CORPORA)}")
    types = {kind.strip() for kind in args.types.split(",")} if args.types else None
    if types and not types <= set(PAGE_TYPES):
        parser.error(f"--types: unknown {sorted(types - set(PAGE_TYPES))}")
    if "wcxb" in corpora and not (args.wcxb / "ground-truth").is_dir():
        parser.error(f"--wcxb: no WCXB set at {args.wcxb}")
    if "trafeval" in corpora and not (args.trafeval / "evaldata.json").is_file():
        parser.error(f"--trafeval: no evaluation set at {args.trafeval}")
    logging.basicConfig(level=logging.ERROR)  # trafilatura warns about every odd page
    print(
        f"Python {platform.python_version()}, lxml {lxml.etree.__version__}, "
        f"trafilatura {trafilatura.__version__}",
        flush=True,
    )
    started = time.perf_counter()
    if "wcxb" in corpora:
        ids = wcxb_run.selected_ids(args.wcxb, types, args.limit)
        rows = wcxb_run.run(args.wcxb, ids)
        wcxb_run.report(rows, args.per_page)
    if "trafeval" in corpora:
        pages = trafeval_run.run(args.trafeval, args.limit)
        trafeval_run.report(pages)
    print(f"\n({time.perf_counter() - started:.0f} s wall clock)")


if __name__ == "__main__":
    main()
