"""A local site of pages that build themselves with JavaScript after ``load``, for the readiness
wait's tests and benchmark: content written 300 ms and 2 s after ``load``, after a ``fetch()`` to
a slow local API, after a client-side route change, beside a request that never ends, beside a
WebSocket that never closes; a page whose DOM never stops changing, an app that never mounts
(blank) and one that sends the browser to another app page after ``load`` (hop); plus a static
page.

Each app page starts as an app shell (an empty ``#root`` and a script), so the Markdown endpoint's
fetch takes it for one. Its content is :data:`ARTICLE`, with the page's name in the heading.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys

import tornado.web
import tornado.websocket

ARTICLE_WORDS = (
    "Harbour cranes lift containers from the evening ferry while the pilots plan the next tide. "
    "The dock workers count every crate twice before the customs office closes its ledger."
)
"""The article every app page renders (checked in the Markdown and in the DOM)."""

API_DELAY = 0.5
"""Seconds the local API takes to answer."""

_SHELL = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Harbour app %(name)s</title>
<style>html,body{margin:0;background:#fff;font:16px sans-serif}
#root article{background:#0a0;color:#fff;min-height:300px;padding:20px}</style>
</head><body><div id="root"></div>
<script>
function show(name) {
  const article = document.createElement('article');
  const heading = document.createElement('h1');
  heading.textContent = 'Ready page ' + name;
  const text = document.createElement('p');
  text.textContent = %(words)s;
  article.append(heading, text);
  document.getElementById('root').replaceChildren(article);
}
%(script)s
</script></body></html>"""

SCRIPTS: dict[str, str] = {
    "timer300": "addEventListener('load', () => setTimeout(() => show('timer300'), 300));",
    "timer2s": "addEventListener('load', () => setTimeout(() => show('timer2s'), 2000));",
    "fetch": """addEventListener('load', async () => {
  const data = await (await fetch('/api/article')).json();
  show(data.name);
});""",
    "route": """addEventListener('load', async () => {
  history.pushState({}, '', '/app/route/article');
  const path = location.pathname.split('/').pop();
  const data = await (await fetch('/api/' + path + '?as=route')).json();
  show(data.name);
});""",
    "polling": """addEventListener('load', async () => {
  fetch('/api/forever').catch(() => {});
  const data = await (await fetch('/api/article?as=polling')).json();
  show(data.name);
});""",
    "socket": """addEventListener('load', () => {
  const socket = new WebSocket('ws://' + location.host + '/ws');
  socket.onmessage = (event) => show(event.data);
});""",
    "blank": "addEventListener('load', () => { window.mounted = false; });",
    "cleared": "show('cleared'); clearInterval(setTimeout(() => {}, 100));",
    "hop": "addEventListener('load', () => setTimeout(() => location.replace('/app/fetch'), 100));",
    "restless": """show('restless');
let tick = 0;
function grow() {
  const line = document.createElement('span');
  line.textContent = ' tick ' + (tick++);
  document.querySelector('article').appendChild(line);
  setTimeout(grow, 20);
}
addEventListener('load', () => setTimeout(grow, 0));""",
}
"""The app pages' scripts, by name (served at ``/app/<name>``)."""

STATIC = (
    "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Static</title>"
    "<style>body{margin:0;background:#fff}article{background:#0a0;color:#fff;min-height:300px}"
    f"</style></head><body><article><h1>Ready page static</h1><p>{ARTICLE_WORDS}</p>"
    "</article></body></html>"
)


def shows_article(html: str, name: str) -> bool:
    """Whether the serialized DOM ``html`` holds the article the app page ``name`` renders (the
    page's source alone does not: its script builds the elements)."""
    return f"<h1>Ready page {name}</h1><p>{ARTICLE_WORDS}</p>" in html


def app_page(name: str) -> str:
    """The app page ``name`` (one of :data:`SCRIPTS`)."""
    return _SHELL % {"name": name, "words": json.dumps(ARTICLE_WORDS), "script": SCRIPTS[name]}


class AppHandler(tornado.web.RequestHandler):
    def get(self, name: str) -> None:
        if name == "static":
            self.finish(STATIC)
        elif name.split("/", maxsplit=1)[0] in SCRIPTS:
            self.finish(app_page(name.split("/", maxsplit=1)[0]))
        else:
            raise tornado.web.HTTPError(404)


class ApiHandler(tornado.web.RequestHandler):
    """``/api/article`` answers after :data:`API_DELAY`; ``/api/forever`` never answers (until
    the client hangs up, or a minute)."""

    def initialize(self) -> None:
        self.gone = asyncio.Event()

    def on_connection_close(self) -> None:
        self.gone.set()

    async def get(self, what: str) -> None:
        if what == "forever":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.gone.wait(), 60)
            return
        await asyncio.sleep(API_DELAY)
        self.finish({"name": self.get_query_argument("as", "fetch")})


class SocketHandler(tornado.websocket.WebSocketHandler):
    """Sends the page's name after 200 ms, then stays open without a word."""

    async def open(self) -> None:
        await asyncio.sleep(0.2)
        with contextlib.suppress(tornado.websocket.WebSocketClosedError):
            await self.write_message("socket")


def spa_app() -> tornado.web.Application:
    """The site: ``/app/<name>``, ``/app/static``, ``/api/...`` and ``/ws``."""
    return tornado.web.Application(
        [
            (r"/app/(.+)", AppHandler),
            (r"/api/(\w+)", ApiHandler),
            (r"/ws", SocketHandler),
        ]
    )


def main() -> None:
    """Serve the site on 127.0.0.1 at the port given as the first argument (for benchmarks)."""
    logging.getLogger("tornado.access").setLevel(logging.ERROR)

    async def serve_forever() -> None:
        spa_app().listen(int(sys.argv[1]), "127.0.0.1")
        await asyncio.Event().wait()

    asyncio.run(serve_forever())


if __name__ == "__main__":
    main()
