"""Local origin sites for the load, chaos and fuzz suites, served from a thread on 127.0.0.1.

One small threaded HTTP server answers a few kinds of pages, each addressable many ways (any
path below a prefix), so a workload can ask for "new" pages without a cache hit:

- ``/article/<anything>``: an article with headings, paragraphs, a list, a code block and a
  table, plus page furniture (navigation, footer) that Markdown extraction should drop;
- ``/card/<anything>``: Open Graph and Twitter card tags, the input of an og_frame embed;
- ``/video/<anything>``: a page announcing an oEmbed endpoint by ``<link rel=alternate>``
  discovery, answered by ``/oembed.json`` on the same server.
"""

from __future__ import annotations

import html
import http.server
import json
import sys
import threading
import urllib.parse
from dataclasses import dataclass

ARTICLE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="description" content="A long read about {topic}."></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/contact">Contact</a></nav>
<main><article>
<h1>{title}</h1>
<p>Field notes on {topic}: what we measured, what went wrong and what we would do again.
The first weeks were spent on the instruments, the rest on the data.</p>
<h2>Method</h2>
<p>Every sample was taken twice, once at dawn and once at dusk, and the readings were
compared with the previous season's before anything was written down.</p>
<ul><li>Two readings a day</li><li>One notebook per site</li><li>No reading discarded</li></ul>
<h2>Results</h2>
<p>The dawn readings were steadier. The dusk readings drifted with the temperature, which
the table below shows for the three sites.</p>
<table><tr><th>Site</th><th>Dawn</th><th>Dusk</th></tr>
<tr><td>North</td><td>4.1</td><td>4.9</td></tr><tr><td>South</td><td>3.8</td><td>4.4</td></tr>
<tr><td>East</td><td>4.0</td><td>5.2</td></tr></table>
<pre><code>mean = sum(readings) / len(readings)</code></pre>
<h3>Caveats</h3>
<p>Three sites are few. Next season adds four more and a second instrument per site.</p>
</article></main>
<footer>Copyright the field station. <a href="/privacy">Privacy</a></footer>
</body></html>"""

CARD = """<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title>
<meta property="og:title" content="{title}">
<meta property="og:description" content="A card about {topic}.">
<meta property="og:site_name" content="Field Station">
<meta property="og:type" content="article">
<meta name="twitter:card" content="summary">
<link rel="icon" href="/favicon.ico">
</head><body><h1>{title}</h1><p>A page with a card.</p></body></html>"""

VIDEO = """<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title>
<link rel="alternate" type="application/json+oembed" href="{oembed}">
</head><body><h1>{title}</h1></body></html>"""


@dataclass
class Sites:
    """A running origin: ``url("/article/x")`` is an absolute URL on it."""

    server: _Server
    thread: threading.Thread

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        parsed = urllib.parse.urlsplit(self.path)
        section, _, rest = parsed.path.lstrip("/").partition("/")
        topic = html.escape(rest.replace("-", " ") or "the weather", quote=True)
        title = f"Notes on {topic}"
        if section == "article":
            self._send(ARTICLE.format(title=title, topic=topic))
        elif section == "card":
            self._send(CARD.format(title=title, topic=topic))
        elif section == "video":
            page = f"http://{self.headers.get('Host', '')}{parsed.path}"
            endpoint = "/oembed.json?url=" + urllib.parse.quote(page, safe="")
            self._send(VIDEO.format(title=title, oembed=html.escape(endpoint, quote=True)))
        elif parsed.path == "/oembed.json":
            answer = {
                "version": "1.0",
                "type": "video",
                "title": "A local video",
                "provider_name": "Field Station",
                "width": 640,
                "height": 360,
                "html": '<iframe src="https://player.invalid/1" width="640" height="360"></iframe>',
            }
            self._send(json.dumps(answer), "application/json")
        elif parsed.path == "/favicon.ico":
            self._send("", "image/x-icon")
        else:
            self._send("<h1>Not here</h1>", status=404)

    def _send(self, body: str, content_type: str = "text/html", status: int = 200) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: a load run makes thousands of requests."""


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """Quiet about clients that went away (a browser killed mid-load, a client's timeout):
        that is what the chaos suite does on purpose."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


def serve_sites() -> Sites:
    """Start the origin on a free loopback port, in a daemon thread."""
    server = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, name="origin", daemon=True)
    thread.start()
    return Sites(server, thread)
