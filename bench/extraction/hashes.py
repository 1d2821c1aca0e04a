"""Every page's Markdown of both corpora hashed, to show that a change leaves the output the
same: ``python -m bench.extraction.hashes --out before.json`` on the code before, again with
``--out after.json`` on the code after, then ``--compare before.json after.json`` names the pages
whose Markdown differs. Pagecast's default options (main content only), and again with reader
comments asked for on trafilatura's set. The CPU seconds of the conversions are printed, a rough
measure only (use the interleaved runs of :mod:`bench.extraction` for speed)."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from bench.extraction.runner import pagecast, pagecast_can_add_comments
from tests import trafeval, wcxb

HERE = Path(__file__).resolve().parents[2]
WCXB = HERE.parent / "shared" / "data" / "wcxb-dev"
TRAFEVAL = HERE.parent / "shared" / "data" / "trafilatura-eval"


def pages(wcxb_dir: Path, trafeval_dir: Path, limit: int | None) -> Iterator[tuple[str, str, str]]:
    """(key, html, url) of every page of both corpora (the first ``limit`` of each)."""
    for file_id in wcxb.file_ids(wcxb_dir)[:limit]:
        page = wcxb.load_page(wcxb_dir, file_id)
        yield f"wcxb/{file_id}", page.html, page.url
    labels = list(trafeval.load_labels(trafeval_dir).items())[:limit]
    for url, label in labels:
        if (trafeval_dir / "html" / f"{label['file']}.gz").is_file():
            page = trafeval.load_page(trafeval_dir, url, label)
            yield f"trafeval/{page.file}", page.html, page.url


def digest(html: str, url: str, comments: bool) -> str:
    try:
        markdown, app_shell = pagecast(html, url, comments)
    except Exception as exc:  # a failure is part of the output
        return f"failed: {type(exc).__name__}"
    return hashlib.sha256(f"{app_shell}\n{markdown}".encode()).hexdigest()


def hash_all(wcxb_dir: Path, trafeval_dir: Path, limit: int | None) -> dict[str, str]:
    comments = pagecast_can_add_comments()
    hashes: dict[str, str] = {}
    cpu = 0.0
    for key, html, url in pages(wcxb_dir, trafeval_dir, limit):
        started = time.process_time()
        hashes[key] = digest(html, url, False)
        if comments and key.startswith("trafeval/"):
            hashes[f"{key}+comments"] = digest(html, url, True)
        cpu += time.process_time() - started
    print(f"{len(hashes)} outputs hashed, {cpu:.1f} CPU seconds", file=sys.stderr)
    return hashes


def compare(before: Path, after: Path) -> int:
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    differ = sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))
    for key in differ:
        print(f"differs: {key}")
    print(f"{len(old)} before, {len(new)} after, {len(differ)} differ")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench.extraction.hashes")
    parser.add_argument("--out", type=Path, help="write the hashes to this JSON file")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--wcxb", type=Path, default=WCXB)
    parser.add_argument("--trafeval", type=Path, default=TRAFEVAL)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.out:
        parser.error("--out or --compare")
    hashes = hash_all(args.wcxb, args.trafeval, args.limit)
    args.out.write_text(json.dumps(hashes, indent=0, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
