"""``server.py crawl URL --out DIR`` against the local crawl site: one Markdown file per page
found, an index of every page, progress on standard error, nothing else kept."""

from __future__ import annotations

import json
from pathlib import Path

from convert.crawl.urls import url_key
from tests.app.test_server import env, run_cli  # noqa: F401  (env is a fixture)
from tests.crawl_site import CrawlSite, SiteShape


def test_crawl_writes_a_file_per_page(env: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "site"
    with CrawlSite(SiteShape(pages=40, slow_pages=0)).running_in_thread() as site:
        done = run_cli(
            env, "crawl", site.url("/"), "--out", str(out), "--max-depth", "2", "retry=false"
        )
        expected = site.expected_crawl(max_depth=2)
    assert done.returncode == 0, done.stderr
    index = json.loads((out / "index.json").read_text())
    assert {url_key(entry["url"]) for entry in index} == set(expected)
    written = [entry for entry in index if entry["status"] == "done"]
    assert sorted(path.name for path in out.glob("*.md")) == sorted(e["file"] for e in written)
    home = next(entry for entry in written if url_key(entry["url"]) == site.url("/"))
    assert home["file"] == "index.md" and (out / "index.md").read_text().startswith("# ")
    assert f"crawl completed: {len(written)} page(s) written to {out}" in done.stderr
    assert f"{len(index)}/{len(index)} pages" in done.stderr  # the progress line
    assert not (Path(env["PAGECAST_STORE_DATA_DIR"]) / "pagecast.db").exists(), "nothing kept"
