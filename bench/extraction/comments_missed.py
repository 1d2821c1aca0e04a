"""The readers' comments Pagecast misses on trafilatura's evaluation set, page by page: each
annotated comment segment not found with ``include_comments``, and whether its text is in the
archived page at all (a comment system that loads its comments by script leaves none of them in
the HTML). Pagecast only, comments on and off; no peer is run.

    python -m bench.extraction.comments_missed [--trafeval DIR]

Prints one line a page with a missed or leaked segment (``in page`` counts the missed segments
whose text the page's visible text holds), then the totals: found, leaked, and found of those
the page holds.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import lxml.html

from bench.extraction.runner import pagecast
from tests.trafeval import EvalPage, load_pages, normalised
from tests.wcxb import markdown_to_text

DATA = Path(__file__).resolve().parent.parent.parent.parent / "shared" / "data"


def page_text(page: EvalPage) -> str:
    """The page's visible text (scripts and styles left out), whitespace normalised."""
    parser = lxml.html.HTMLParser(encoding="utf-8")
    root = lxml.html.fromstring(page.html.encode("utf-8"), parser=parser)
    for element in root.xpath("//script|//style"):
        element.drop_tree()
    return normalised(root.text_content())


def main() -> None:
    parser = argparse.ArgumentParser(description="readers' comments missed on trafilatura-eval")
    parser.add_argument("--trafeval", type=Path, default=DATA / "trafilatura-eval")
    args = parser.parse_args()
    total = found = leaked = held = held_found = 0
    for page in load_pages(args.trafeval):
        if not page.comments:
            continue
        on = normalised(markdown_to_text(pagecast(page.html, page.url, True)[0]))
        off = normalised(markdown_to_text(pagecast(page.html, page.url, False)[0]))
        visible = page_text(page)
        segments = [normalised(segment) for segment in page.comments]
        missed = [segment for segment in segments if segment not in on]
        leaks = [segment for segment in segments if segment in off]
        total += len(segments)
        found += len(segments) - len(missed)
        leaked += len(leaks)
        held += sum(1 for segment in segments if segment in visible)
        held_found += sum(1 for segment in segments if segment in visible and segment in on)
        if missed or leaks:
            in_page = sum(1 for segment in missed if segment in visible)
            first = (missed or leaks)[0][:60]
            print(
                f"{page.file}: missed {len(missed)} of {len(segments)} ({in_page} in page), "
                f"leaked {len(leaks)} | {first}"
            )
    print(
        f"\nfound {found} of {total} with comments on, leaked {leaked} with them off; "
        f"the pages hold {held} of the {total} in their text, {held_found} of them found"
    )


if __name__ == "__main__":
    main()
