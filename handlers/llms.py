"""``/llms.txt``: the API told to language-model agents in the llms.txt convention (Markdown, sent
as plain text: a title, a one-paragraph summary in a quote, then sections of links, one line
each).

It is written from the same document as ``/openapi.json`` (:func:`build_openapi`), so it names
every operation the document names and cannot drift from it: each operation links to its place
in the reference page (``/docs``), whose anchors are made the same way (``op-`` and the
operation's id, cut to letters, digits and underscores, as ``static/docs.js`` does). No key is
needed, as for the document itself."""

from __future__ import annotations

import re
from typing import Any

from handlers.base import BaseHandler
from handlers.openapi.document import build_openapi

METHODS = ("get", "head", "put", "post", "delete", "patch")
"""The methods an operation may have, in the order each path lists them."""

SUMMARY = (
    "Pagecast turns a web page into a screenshot, an oEmbed embed (a native or discovered "
    "embed, else a hosted card frame on a second host) or Markdown for LLM pipelines (with "
    "chunks, query-ranked passages, page structure and a prompt-injection scan); it lists a "
    "site's URLs and converts many pages, or a whole site, as background jobs. Every call is "
    "an HTTP request with an API key (the `api-key` header, or `app_id` in the query) that "
    "answers JSON (or the image or Markdown itself); the `X-BILLING-REQUESTS` header says "
    "what it cost."
)

NOTES = (
    "Send the target URL URL-encoded in the path (`/api/3.0/markdown/https%3A%2F%2Fexample.com`) "
    "or as the `url` query parameter. Errors are JSON in one of two shapes (Markdown's, with an "
    "integer code; oEmbed's, screenshots' and frames', with a string code), each code listed "
    "once in the reference's Errors section."
)


def anchor(operation_id: str) -> str:
    """The reference page's anchor of an operation (``slug`` in ``static/docs.js``)."""
    return "op-" + re.sub(r"[^a-z0-9_]+", "-", operation_id.lower()).strip("-")


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, operation) for every operation of ``document``, in its order."""
    return [
        (method, path, item[method])
        for path, item in document["paths"].items()
        for method in METHODS
        if method in item
    ]


def _operation_line(base_url: str, method: str, path: str, operation: dict[str, Any]) -> str:
    """One link: the method and path to the operation's place in the reference, its summary,
    and the host it is served on when that is not the API's (the frame host)."""
    link = f"{base_url}/docs#{anchor(operation['operationId'])}"
    hosts = [server["url"] for server in operation.get("servers", ())]
    where = f" (on {hosts[0]})" if hosts and hosts[0] != base_url else ""
    return f"- [{method.upper()} {path}]({link}): {operation['summary']}{where}"


def llms_txt(document: dict[str, Any], base_url: str) -> str:
    """The file, for a server whose public address is ``base_url``."""
    info = document["info"]
    keyed: list[str] = []
    free: list[str] = []
    for method, path, operation in operations(document):
        line = _operation_line(base_url, method, path, operation)
        (keyed if operation.get("security") else free).append(line)
    lines = [
        f"# {info['title']}",
        "",
        f"> {SUMMARY}",
        "",
        NOTES,
        "",
        "## Operations",
        "",
        *keyed,
        "",
        "## Reference",
        "",
        f"- [OpenAPI description]({base_url}/openapi.json): every operation, parameter, "
        "answer and error as OpenAPI 3.1 JSON, with example bodies",
        f"- [API reference]({base_url}/docs): the same, as a page for people",
        "",
        "## Optional",
        "",
        *free,
        "",
    ]
    return "\n".join(lines)


class LlmsTxtHandler(BaseHandler):
    """Serves the file (written on each request, from the document of the server's
    addresses)."""

    endpoint = "llms_txt"
    counts_in_flight = False

    async def get(self) -> None:
        server = self.services.server
        base_url = server.public_base_url()
        document = build_openapi(base_url, server.public_frame_host())
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.set_header("Cache-Control", "public, max-age=300")
        self.finish(llms_txt(document, base_url).encode("utf-8"))


ROUTES = [(r"/llms\.txt", LlmsTxtHandler)]
