"""Markdown conversion against trafilatura and readability-lxml: speed, quality, and over HTTP.

On the golden corpus (``tests/corpus``), in one run on one machine:

(1) speed: every page converted in this process, after one warm-up round, for ``--rounds``
    rounds interleaved so that noise spreads over every method, by Pagecast's
    :func:`convert.markdown.pipeline.convert_page` (main content, the default), trafilatura with
    Markdown output, readability-lxml's article fed to html2text, and html2text alone on the whole
    page; pages/s, ms per page (mean and p95) and the ratio to trafilatura (every page counts);
(2) quality: the mean word-shingle F1 (``tests/corpus.py``) of each method's output against the
    labelled article of every page that is not an app shell, and how many pages score below 0.8;
    ``--per-page`` prints every page's scores;
(3) end to end: a real Pagecast over HTTP, the corpus pages served by a local origin, the page
    cache warm (each request is a cache read plus a conversion in the worker pool; auto_render
    is off so that app shells are not sent to Chromium), ``--concurrency`` requests in flight
    for ``--seconds``: requests/s, p50/p95 latency, errors.

The peers come from bench/requirements.txt, for comparison only; Pagecast never imports them.

    python bench/markdown.py [--rounds 5] [--seconds 20] [--concurrency 4] [--per-page] [--no-http]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import quote

import html2text
import readability
import trafilatura
from pagecast_process import PYTHON, ROOT, free_port, start_pagecast, wait_for
from tornado.httpclient import AsyncHTTPClient

from convert.markdown.pipeline import ConvertOptions, convert_page

sys.path.insert(0, str(ROOT / "tests"))
from corpus import CORPUS, CorpusPage, load_corpus, shingle_f1

OPTIONS = ConvertOptions()
BASELINE = "trafilatura"
TARGET_RATIO = 1.0
"""Pagecast's pages/s over trafilatura's must reach this."""
GOOD_F1 = 0.8
REQUEST_TIMEOUT = 60.0

ORIGIN = """
import asyncio, pathlib, sys, tornado.web
PAGES = {path.stem: path.read_bytes() for path in pathlib.Path(sys.argv[2]).glob("*.html")}
class Page(tornado.web.RequestHandler):
    def get(self, name):
        if name not in PAGES:
            raise tornado.web.HTTPError(404)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.write(PAGES[name])
async def main():
    tornado.web.Application([(r"/([\\w.-]+)", Page)]).listen(int(sys.argv[1]), "127.0.0.1")
    await asyncio.Event().wait()
asyncio.run(main())
"""

# -- the methods ------------------------------------------------------------------------------


def pagecast(page: CorpusPage) -> str:
    return convert_page(page.html, page.url, OPTIONS).markdown


def trafilatura_markdown(page: CorpusPage) -> str:
    extracted = trafilatura.extract(
        page.html,
        url=page.url,
        output_format="markdown",
        include_tables=True,
        include_links=True,
        include_images=True,
        include_formatting=True,
    )
    return extracted or ""


def html_to_markdown(html: str, url: str) -> str:
    """html2text with its defaults, lines left unwrapped."""
    return html2text.HTML2Text(baseurl=url, bodywidth=0).handle(html)


def readability_html2text(page: CorpusPage) -> str:
    """readability's article as Markdown, under the page title (the article drops it)."""
    document = readability.Document(page.html, url=page.url)
    body = html_to_markdown(document.summary(html_partial=True), page.url)
    title = document.title()
    return body if title in ("", "[no-title]") else f"# {title}\n\n{body}"


def html2text_alone(page: CorpusPage) -> str:
    return html_to_markdown(page.html, page.url)


METHODS: dict[str, Callable[[CorpusPage], str]] = {
    "pagecast": pagecast,
    "trafilatura": trafilatura_markdown,
    "readability+html2text": readability_html2text,
    "html2text": html2text_alone,
}

# -- (1) speed --------------------------------------------------------------------------------


@dataclass
class MethodRun:
    """One method over the corpus: the warm-up's outputs (the ones scored) and, per conversion
    of the measured rounds, its seconds."""

    outputs: list[str]
    failures: int
    seconds: list[float] = field(default_factory=list)

    @property
    def pages_per_second(self) -> float:
        return len(self.seconds) / sum(self.seconds)


def run_round(
    method: Callable[[CorpusPage], str], pages: list[CorpusPage]
) -> tuple[list[str], list[float], int]:
    """Outputs, seconds per page, and failures of one round over ``pages``."""
    outputs, seconds, failures = [], [], 0
    gc.collect()  # the previous method's garbage is not collected on this one's time
    for page in pages:
        started = time.perf_counter()
        try:
            outputs.append(method(page))
        except Exception:  # counted and shown; the page scores 0
            outputs.append("")
            failures += 1
        seconds.append(time.perf_counter() - started)
    return outputs, seconds, failures


def measure_speed(pages: list[CorpusPage], rounds: int) -> dict[str, MethodRun]:
    runs = {}
    for name, method in METHODS.items():  # warm-up: imports, caches, compiled patterns
        outputs, _, failures = run_round(method, pages)
        runs[name] = MethodRun(outputs, failures)
    for _ in range(rounds):
        for name, method in METHODS.items():
            runs[name].seconds.extend(run_round(method, pages)[1])
    return runs


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def speed_table(runs: dict[str, MethodRun], pages: int, rounds: int) -> None:
    print(f"\n(1) speed: {pages} pages x {rounds} rounds, one process, after a warm-up round")
    print(
        f"{'method':<22} {'pages/s':>8} {'ms mean':>8} {'ms p95':>8} "
        f"{'vs ' + BASELINE:>15} {'failed':>6}"
    )
    base = runs[BASELINE].pages_per_second
    for name, run in runs.items():
        rate = run.pages_per_second
        print(
            f"{name:<22} {rate:>8.1f} {statistics.fmean(run.seconds) * 1e3:>8.2f} "
            f"{p95(run.seconds) * 1e3:>8.2f} {rate / base:>15.2f} {run.failures:>6}"
        )


# -- (2) quality ------------------------------------------------------------------------------


def labelled(pages: list[CorpusPage]) -> list[int]:
    """Indexes of the pages scored: labelled, and not app shells."""
    return [n for n, page in enumerate(pages) if not page.app_shell and page.article.strip()]


def score(pages: list[CorpusPage], runs: dict[str, MethodRun]) -> dict[str, list[float]]:
    """Each method's F1 on every scored page, in corpus order."""
    return {
        name: [shingle_f1(run.outputs[n], pages[n].article) for n in labelled(pages)]
        for name, run in runs.items()
    }


def quality_table(scores: dict[str, list[float]]) -> None:
    count = len(next(iter(scores.values())))
    print(f"\n(2) quality: word-shingle F1 against the labelled article, {count} pages")
    print(f"{'method':<22} {'mean F1':>8} {'median':>8} {'min':>6} {f'< {GOOD_F1}':>6}")
    for name, values in scores.items():
        below = sum(value < GOOD_F1 for value in values)
        print(
            f"{name:<22} {statistics.fmean(values):>8.3f} {statistics.median(values):>8.3f} "
            f"{min(values):>6.2f} {below:>6}"
        )


def per_page_table(pages: list[CorpusPage], scores: dict[str, list[float]]) -> None:
    rows = [pages[n] for n in labelled(pages)]
    name_width = max(len("page"), *(len(page.name) for page in rows))
    kind_width = max(len("kind"), *(len(page.kind) for page in rows))
    widths = {name: max(len(name), 6) for name in scores}
    header = "".join(f" {name:>{width}}" for name, width in widths.items())
    print(f"\n{'page':<{name_width}} {'kind':<{kind_width}}{header}")
    for row, page in enumerate(rows):
        cells = "".join(f" {scores[name][row]:>{width}.3f}" for name, width in widths.items())
        print(f"{page.name:<{name_width}} {page.kind:<{kind_width}}{cells}")


# -- (3) end to end over HTTP -----------------------------------------------------------------


@contextmanager
def origin() -> Iterator[str]:
    """A local origin serving every corpus page at ``/<name>``; yields its base URL."""
    port = free_port()
    process = subprocess.Popen([PYTHON, "-c", ORIGIN, str(port), str(CORPUS)])
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


@contextmanager
def pagecast_server() -> Iterator[tuple[int, str]]:
    """A throw-away Pagecast; yields its port and an API key."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server, key = start_pagecast(tmp, port)
        try:
            yield port, key
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                server.kill()


def api_url(port: int, key: str, target: str) -> str:
    encoded = quote(target, safe="")
    return f"http://127.0.0.1:{port}/api/3.0/markdown/{encoded}?app_id={key}&auto_render=false"


async def warm(client: AsyncHTTPClient, urls: list[str]) -> tuple[int, int]:
    """Each page fetched once into the cache; (failures, pages then answered from the cache)."""
    failures = 0
    for url in urls:
        response = await client.fetch(url, raise_error=False, request_timeout=REQUEST_TIMEOUT)
        failures += response.code != 200
    await asyncio.sleep(1.0)  # the cache is written after the answer
    hits = 0
    for url in urls:
        response = await client.fetch(
            f"{url}&format=json", raise_error=False, request_timeout=REQUEST_TIMEOUT
        )
        hits += response.code == 200 and json.loads(response.body)["debug"]["cache_hit"]
    return failures, hits


async def load(
    client: AsyncHTTPClient, urls: list[str], seconds: float, concurrency: int
) -> dict[str, float]:
    """``concurrency`` workers cycling through ``urls`` until ``seconds`` have passed."""
    latencies: list[float] = []
    errors = 0
    queue = itertools.cycle(urls)
    deadline = time.monotonic() + seconds

    async def worker() -> None:
        nonlocal errors
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                response = await client.fetch(
                    next(queue), raise_error=False, request_timeout=REQUEST_TIMEOUT
                )
                ok = response.code == 200
            except Exception:  # counted as an error: no latency
                ok = False
            if ok:
                latencies.append(time.perf_counter() - started)
            else:
                errors += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    row = {"rps": len(latencies) / elapsed, "requests": len(latencies), "errors": errors}
    if len(latencies) < 2:  # (nearly) every request failed: the error count says so
        return {**row, "p50_ms": float("nan"), "p95_ms": float("nan")}
    return {**row, "p50_ms": statistics.median(latencies) * 1e3, "p95_ms": p95(latencies) * 1e3}


async def over_http(urls: list[str], args: argparse.Namespace) -> dict[str, float]:
    client = AsyncHTTPClient(max_clients=max(16, args.concurrency))
    warm_failures, hits = await warm(client, urls)
    row = await load(client, urls, args.seconds, args.concurrency)
    return {**row, "warm_failures": warm_failures, "cache_hits": hits, "pages": len(urls)}


def measure_http(pages: list[CorpusPage], args: argparse.Namespace) -> dict[str, float]:
    with origin() as base, pagecast_server() as (port, key):
        wait_for(f"{base}/{pages[0].name}")
        urls = [api_url(port, key, f"{base}/{page.name}") for page in pages]
        return asyncio.run(over_http(urls, args))


def http_table(row: dict[str, float], args: argparse.Namespace) -> None:
    print(
        f"\n(3) over HTTP: {row['pages']:.0f} pages cycled, cache warm "
        f"({row['cache_hits']:.0f} of {row['pages']:.0f} cache hits, "
        f"{row['warm_failures']:.0f} failed warm-up requests), concurrency {args.concurrency}, "
        f"{args.seconds:.0f} s"
    )
    print(f"{'requests':>8} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'errors':>6}")
    print(
        f"{row['requests']:>8.0f} {row['rps']:>8.1f} {row['p50_ms']:>8.1f} "
        f"{row['p95_ms']:>8.1f} {row['errors']:>6.0f}"
    )


# -- (4) summary ------------------------------------------------------------------------------


def summary(runs: dict[str, MethodRun], scores: dict[str, list[float]]) -> bool:
    ratio = runs["pagecast"].pages_per_second / runs[BASELINE].pages_per_second
    verdict = "ok" if ratio >= TARGET_RATIO else "BELOW TARGET"
    print(f"\n(4) summary\npagecast pages/s / {BASELINE} pages/s: {ratio:.2f}", end=" ")
    print(f"(target >= {TARGET_RATIO}: {verdict})")
    means = {name: statistics.fmean(values) for name, values in scores.items()}
    print("mean F1: " + ", ".join(f"{name} {value:.3f}" for name, value in means.items()))
    print(json.dumps({"speed_ratio": ratio, "f1": means}))
    return ratio >= TARGET_RATIO


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="measured rounds of the corpus")
    parser.add_argument("--seconds", type=float, default=20, help="seconds of the HTTP run")
    parser.add_argument("--concurrency", type=int, default=4, help="requests in flight (HTTP)")
    parser.add_argument("--per-page", action="store_true", help="print every page's F1")
    parser.add_argument("--no-http", action="store_true", help="skip the HTTP run")
    args = parser.parse_args()
    started = time.monotonic()
    pages = load_corpus()
    runs = measure_speed(pages, args.rounds)
    scores = score(pages, runs)
    speed_table(runs, len(pages), args.rounds)
    quality_table(scores)
    if args.per_page:
        per_page_table(pages, scores)
    if not args.no_http:
        http_table(measure_http(pages, args), args)
    ok = summary(runs, scores)
    print(f"\n{time.monotonic() - started:.0f} s in all")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
