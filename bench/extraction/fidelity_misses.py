"""``python -m bench.extraction.fidelity_misses``: every reference table, code block and list of
WCXB's development set that Pagecast's Markdown does not reproduce (``tests/fidelity.py``), page
by page, each with its share and the output fragment that holds most of it, so that the causes
of the misses can be read and counted. Only Pagecast runs; ``--out`` writes one JSON line per
miss beside the printed summary."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from bench.extraction.runner import extract
from tests.fidelity import REPRODUCED, Structure, read_structure
from tests.wcxb import file_ids, load_page, read_label

DATA = Path(__file__).resolve().parent.parent.parent.parent / "shared" / "data" / "wcxb-dev"
KINDS = ("tables", "code", "lists")
SHOWN = 8
"""How many cells, lines or items of a missed structure and of its best match are shown."""


def _share(wanted: tuple[object, ...], held: Counter[object]) -> float:
    want = Counter(wanted)
    total = sum(want.values())
    return sum((want & held).values()) / total if total else 1.0


def misses(reference: Structure, output: Structure, kinds: set[str]) -> list[dict[str, object]]:
    """The reference's structures under :data:`REPRODUCED`, each with its best output match."""
    found: list[dict[str, object]] = []
    if "tables" in kinds:
        for table in filter(None, reference.tables):
            scored = [(_share(table, Counter(cells)), cells) for cells in output.tables]
            share, best = max(scored, key=lambda pair: pair[0], default=(0.0, ()))
            if share < REPRODUCED:
                missing = list((Counter(table) - Counter(best)).elements())
                found.append(_miss("table", share, table, best, missing))
    if "code" in kinds:
        lines: Counter[object] = Counter(line for block in output.code_blocks for line in block)
        for block in filter(None, reference.code_blocks):
            share = _share(block, lines)
            if share < REPRODUCED:
                best = max(output.code_blocks, key=lambda b: _share(block, Counter(b)), default=())
                missing = list((Counter(block) - lines).elements())
                found.append(_miss("code", share, block, best, missing))
    if "lists" in kinds:
        items: Counter[object] = Counter(item for group in output.lists for item in group)
        texts = Counter(text for group in output.lists for _, text in group)
        for group in filter(None, reference.lists):
            share = _share(group, items)
            if share < REPRODUCED:
                text_share = _share(tuple(text for _, text in group), texts)
                best = max(output.lists, key=lambda g: _share(group, Counter(g)), default=())
                missing = list((Counter(group) - items).elements())
                miss = _miss("list", share, group, best, missing)
                miss["text_share"] = round(text_share, 3)
                found.append(miss)
    return found


def _miss(
    kind: str, share: float, wanted: tuple[object, ...], best: tuple[object, ...], missing: list
) -> dict[str, object]:
    return {
        "kind": kind,
        "share": round(share, 3),
        "size": len(wanted),
        "reference": list(wanted[:SHOWN]),
        "best": list(best[:SHOWN]),
        "missing": missing[:SHOWN],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--wcxb", type=Path, default=DATA, help="the WCXB set")
    parser.add_argument("--kinds", default=",".join(KINDS), help="tables, code, lists")
    parser.add_argument("--ids", help="only these file ids, comma-separated")
    parser.add_argument("--out", type=Path, help="write every miss as a JSON line")
    args = parser.parse_args()
    kinds = {kind.strip() for kind in args.kinds.split(",")}
    ids = args.ids.split(",") if args.ids else file_ids(args.wcxb)
    totals: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    out = args.out.open("w", encoding="utf-8") if args.out else None
    for file_id in ids:
        label = read_label(args.wcxb, file_id)
        markdown = label["ground_truth"].get("main_content_markdown")
        if not markdown:
            continue
        reference = read_structure(markdown)
        wanted = {
            "tables": sum(1 for t in reference.tables if t),
            "code": sum(1 for b in reference.code_blocks if b),
            "lists": sum(1 for g in reference.lists if g),
        }
        if not any(wanted[kind] for kind in kinds):
            continue
        page = load_page(args.wcxb, file_id)
        output = read_structure(extract("pagecast", page.html, page.url).markdown)
        for kind in kinds:
            totals[kind] += wanted[kind]
        for miss in misses(reference, output, kinds):
            missed[str(miss["kind"])] += 1
            miss.update(file_id=file_id, url=page.url)
            if out:
                out.write(json.dumps(miss, ensure_ascii=False) + "\n")
            print(f"{file_id} {miss['kind']} {miss['share']:.2f} of {miss['size']} {page.url}")
    if out:
        out.close()
    names = {"tables": "table", "code": "code", "lists": "list"}
    for kind in sorted(kinds):
        total = totals[kind]
        kept = total - missed[names[kind]]
        print(f"{kind}: {kept}/{total} reproduced ({kept / total if total else 0:.3f})")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
