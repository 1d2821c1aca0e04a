"""``server.py crawl URL --out DIR``: a site as Markdown files, without a running server.

The command serves the API on a loopback port with a throw-away store (as the one-shot commands
do), submits a crawl exactly as a client would, shows its progress on standard error, and writes
each page as it finishes: ``DIR/<name>.md`` (the page's path, made a file name), and at the end
``DIR/index.json`` with every page's URL, status, file or error.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from tornado.httpclient import AsyncHTTPClient, HTTPClientError

from app.config import Settings
from app.oneshot import local_api, report_warnings
from handlers.params.jobs import ANSWER_ONLY, OPTIONS

POLL_SECONDS = 0.5
BAR_WIDTH = 30
NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME = 120


@dataclass(frozen=True)
class CrawlCommand:
    """What the command line asks for."""

    url: str
    out: Path
    max_pages: int = 100
    max_depth: int = 3
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    subdomains: bool = False
    options: dict[str, str] = field(default_factory=dict)
    """Markdown parameters for every page (name=value)."""


def option_problems(options: Mapping[str, str]) -> list[str]:
    """Why each of ``options`` is no Markdown parameter a crawl's pages take, with the one
    probably meant."""
    problems = []
    for name in OPTIONS.unknown(list(options)):
        if name in ANSWER_ONLY:
            problems.append(f"{name}= does not apply to a crawl (it shapes one page's answer)")
            continue
        close = OPTIONS.suggestion(name)
        hint = f" (did you mean {close}?)" if close else ""
        problems.append(f"{name}= is not a Markdown parameter{hint}")
    return problems


async def run_crawl(settings: Settings, command: CrawlCommand) -> int:
    """Crawl, write the pages; the exit code (0 when the crawl completed)."""
    try:
        command.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"cannot make the folder {command.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    async with local_api(settings) as (_, port, key):
        client = AsyncHTTPClient()
        base = f"http://127.0.0.1:{port}"
        headers = {"X-API-Key": key, "Content-Type": "application/json"}
        body = {
            "url": command.url,
            "max_pages": command.max_pages,
            "max_depth": command.max_depth,
            "include": list(command.include),
            "exclude": list(command.exclude),
            "subdomains": command.subdomains,
            "options": command.options,
        }
        try:
            response = await client.fetch(
                f"{base}/api/3.0/crawl",
                method="POST",
                body=json.dumps(body),
                headers=headers,
                raise_error=False,
            )
        except (HTTPClientError, OSError) as exc:
            print(f"crawl failed: {exc}", file=sys.stderr)
            return 1
        report_warnings(response)
        if response.code != 202:
            print(f"crawl refused ({response.code}):", file=sys.stderr)
            print(response.body.decode("utf-8", "replace"), file=sys.stderr)
            return 1
        job_id = json.loads(response.body)["id"]
        writer = PageWriter(command.out)
        status = await _follow(client, f"{base}/api/3.0/jobs/{job_id}", headers, writer)
    writer.finish()
    print(
        f"crawl {status}: {writer.written} page(s) written to {command.out}, "
        f"{len(writer.failed)} failed",
        file=sys.stderr,
    )
    return 0 if status == "completed" else 1


async def _follow(
    client: AsyncHTTPClient, url: str, headers: dict[str, str], writer: PageWriter
) -> str:
    """Poll the job, write its results as they come, draw the bar; the job's final status."""
    cursor = "0"
    bar = ProgressBar(sys.stderr)
    while True:
        response = await client.fetch(f"{url}?limit=100&cursor={cursor}", headers=headers)
        job = json.loads(response.body)
        for result in job["results"]:
            await asyncio.get_running_loop().run_in_executor(None, writer.write, result)
        cursor = job["next_cursor"]
        bar.draw(job)
        if job["status"] not in ("queued", "running") and not job["has_more"]:
            bar.close()
            return str(job["status"])
        if not job["has_more"]:
            await asyncio.sleep(POLL_SECONDS)


class ProgressBar:
    """``[#####.....] 42/100 pages, 3 failed, 45 credits, 12s`` on a terminal, redrawn in place
    (elsewhere a line now and then)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.started = time.monotonic()
        self.last = 0.0

    def draw(self, job: dict[str, Any]) -> None:
        progress = job["progress"]
        ended = progress["done"] + progress["failed"]
        total = max(progress["total"] - progress["skipped"], 1)
        filled = round(BAR_WIDTH * min(ended / total, 1.0))
        line = (
            f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {ended}/{total} pages, "
            f"{progress['failed']} failed, {job['credits']} credits, "
            f"{time.monotonic() - self.started:.0f}s"
        )
        if self.tty:
            self.stream.write("\r" + line)
            self.stream.flush()
        elif time.monotonic() - self.last >= 5 or job["status"] not in ("queued", "running"):
            self.stream.write(line + "\n")
            self.last = time.monotonic()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")


class PageWriter:
    """Each finished page as a Markdown file, named after its path; an index at the end."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.index: list[dict[str, Any]] = []
        self.names: set[str] = set()
        self.written = 0
        self.failed: list[str] = []

    def write(self, result: dict[str, Any]) -> None:
        entry: dict[str, Any] = {"url": result["url"], "status": result["status"]}
        if result["status"] == "done":
            name = self._name(result["url"])
            (self.folder / name).write_text(result.get("markdown", ""), encoding="utf-8")
            entry["file"] = name
            entry["title"] = result.get("metadata", {}).get("title", "")
            self.written += 1
        else:
            entry["error"] = result.get("error")
            self.failed.append(result["url"])
        self.index.append(entry)

    def finish(self) -> None:
        text = json.dumps(self.index, ensure_ascii=False, indent=2)
        (self.folder / "index.json").write_text(text + "\n", encoding="utf-8")

    def _name(self, url: str) -> str:
        """A file name for the page: its path and query, safe characters only, unique."""
        parts = urlsplit(url)
        stem = (parts.path.strip("/") + ("-" + parts.query if parts.query else "")) or "index"
        stem = NAME_CHARS.sub("_", stem.replace("/", "__")).strip("._")[:MAX_NAME] or "page"
        name, number = f"{stem}.md", 2
        while name in self.names or name == "index.json":
            name, number = f"{stem}-{number}.md", number + 1
        self.names.add(name)
        return name
