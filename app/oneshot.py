"""One-shot commands for people without a running server: ``server.py screenshot``,
``server.py markdown`` and ``server.py oembed``.

Each starts Pagecast's services with a temporary SQLite store, serves the API application on a
loopback port for the length of one request, asks it exactly as a client would, and writes the
answer. The same parameter tables, fetchers, farm and converters answer; nothing is kept, so a
hosted frame's card is handed out inline rather than as a link to a frame host that would be
gone when the command ends. The answer alone goes to standard output (or the output file); the
warnings the API sent with it go to standard error, a ``warning:`` line each.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import html
import json
import socket
import sys
import tempfile
import textwrap
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPResponse
from tornado.httpserver import HTTPServer

from app.config import Settings
from app.services import Services, close_services, open_services
from app.web import make_api_app
from browser.deny import DenyList
from browser.resolver import ResolutionError, system_resolver
from browser.ssrf import AddressPolicy, Refusal, URLRefusedError, normalise_url
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.params.oembed import OEMBED_PARAMS
from handlers.params.param import Param
from handlers.params.screenshot import SCREENSHOT_PARAMS
from handlers.params.table import ParamTable
from handlers.warnings import WARNINGS_HEADER
from services.accounts.plans import PlanSettings

ROUTES = {
    "screenshot": "/api/1.1/screenshot/{}",
    "markdown": "/api/3.0/markdown/{}",
    "oembed": "/api/3.0/oembed/{}",
}
TABLES: dict[str, ParamTable[Any]] = {
    "screenshot": SCREENSHOT_PARAMS,
    "markdown": MARKDOWN_PARAMS,
    "oembed": OEMBED_PARAMS,
}
# Parameters the command itself fills in, with what a person does instead.
OWN_PARAMS = {
    "app_id": "it asks with a key of its own",
    "url": "give the page as the URL argument",
}
COMMAND_OWN = {
    "screenshot": {"response_type": "it writes the image itself, to -o FILE"},
}
# How the API joins its warnings in one X-Pagecast-Warnings header (when the answer is no JSON
# object with a warnings list, the header is all there is).
WARNING_SEPARATOR = " | "
# The format an output file's extension asks for, when the command line names none.
EXTENSION_FORMATS: dict[str, dict[str, str]] = {
    "screenshot": {
        ".png": "png",
        ".jpg": "jpeg",
        ".jpeg": "jpeg",
        ".webp": "webp",
        ".pdf": "pdf",
    },
    "markdown": {".json": "json", ".md": "markdown", ".markdown": "markdown", ".txt": "markdown"},
}
HTML_EXTENSIONS = frozenset({".html", ".htm"})
STDOUT = Path("-")
REQUEST_TIMEOUT = 180.0
PROGRESS_EVERY = 2.0
CLI_PLAN = "cli"
# The inlined card gets the same sandbox as a hosted frame shown in the playground: its link
# may open a new tab, nothing in it may run.
CARD_SANDBOX = "allow-popups allow-popups-to-escape-sandbox"


@dataclass(frozen=True)
class OneShot:
    """One command line's request: the endpoint, the target, its parameters and where the
    answer goes (None: standard output for text; ``-``: standard output)."""

    command: str
    url: str
    params: dict[str, str]
    output: Path | None = None
    verbose: bool = False


def own_params(command: str) -> dict[str, str]:
    """The parameters the command fills in itself, each with what to do instead."""
    return {**OWN_PARAMS, **COMMAND_OWN.get(command, {})}


def own_param_problems(command: str, params: Mapping[str, str]) -> list[str]:
    """Why each parameter the command fills in itself cannot come from the command line."""
    own = own_params(command)
    return [f"{name}= is the command's own: {own[name]}" for name in params if name in own]


def with_output_format(command: str, params: dict[str, str], output: Path | None) -> dict[str, str]:
    """``params`` with ``format`` taken from the output file's extension when none was given
    (``-o shot.png`` means ``format=png``); an explicit ``format`` always wins."""
    if output is None or output == STDOUT or "format" in params:
        return params
    wanted = EXTENSION_FORMATS.get(command, {}).get(output.suffix.lower())
    return {**params, "format": wanted} if wanted else params


def parameters_help(command: str) -> str:
    """The endpoint's parameters for ``--help``, read from the same table that validates the
    request and describes it in ``/openapi.json``."""
    lines = ["parameters (name=value, in any order with the options; /docs has the details):"]
    for param in TABLES[command].params:
        if param.name in own_params(command):
            continue
        lines.append(f"  {param.name}: {_kind(param)}")
        lines += textwrap.wrap(param.help, 76, initial_indent="      ", subsequent_indent="      ")
    extensions = EXTENSION_FORMATS.get(command)
    if extensions:
        names = ", ".join(f"{ext} {fmt}" for ext, fmt in extensions.items())
        lines += ["", f"without format=, the output file's extension chooses it: {names}."]
    if command == "oembed":
        lines += [
            "",
            "a hosted card (source og_frame) lives only as long as this command, so its html is",
            "the card itself in an iframe's srcdoc, and frame_url and embed_id are left out;",
            "-o FILE.html writes the card page (or a provider's html) instead of the JSON.",
        ]
    return "\n".join(lines)


def _kind(param: Param) -> str:
    words: list[str] = [param.type]
    if param.choices and not param.lenient_choice:
        words = ["one of " + ", ".join(param.choices)]
    elif param.choices:
        words.append("one of " + ", ".join(param.choices) + " (else the default)")
    if param.minimum is not None or param.maximum is not None:
        low = "" if param.minimum is None else _number(param.minimum)
        high = "" if param.maximum is None else _number(param.maximum)
        words.append(f"{low}..{high}")
    if param.default is not None:
        default = param.default
        if isinstance(default, bool):
            default = "true" if default else "false"
        words.append(f"default {default}")
    return ", ".join(words)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


@contextlib.asynccontextmanager
async def local_api(settings: Settings) -> AsyncIterator[tuple[Services, int, str]]:
    """Pagecast's services with a throw-away store, the API served on a loopback port, and a key
    on an unmetered plan: (services, port, key), for as long as the block runs."""
    with tempfile.TemporaryDirectory(prefix="pagecast-") as tmp:
        settings = _private(settings, tmp)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        sock.setblocking(False)
        port = sock.getsockname()[1]
        settings.server.port = port
        services = await open_services(
            settings, own_endpoints=[("127.0.0.1", port)], wait_for_workers=False
        )
        server = HTTPServer(make_api_app(services))
        server.add_sockets([sock])
        try:
            loop = asyncio.get_running_loop()
            key = (await loop.run_in_executor(None, services.store.create_key, "cli", CLI_PLAN)).key
            yield services, port, key
        finally:
            server.stop()
            await close_services(services)


async def run_once(settings: Settings, shot: OneShot) -> int:
    """Answer one request; returns the process exit code (0 on a 2xx answer)."""
    async with local_api(settings) as (services, port, key):
        response = await _ask(port, key, shot)
        if response is None:
            return 1
        report_warnings(response)
        if response.code >= 400:
            await _report_failure(services.settings, shot, response)
            return 1
        body = response.body
        if shot.command == "oembed":
            body = await _lasting_embed(services, body, shot)
        try:
            await _write(shot, body, response.headers.get("X-BILLING-REQUESTS", "0"))
        except OSError as exc:
            where = "standard output" if shot.output in (None, STDOUT) else shot.output
            print(f"cannot write to {where}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        return 0


def api_warnings(response: HTTPResponse) -> list[str]:
    """What the API warned about the request: a JSON answer's ``warnings`` list (each warning
    whole), else the X-Pagecast-Warnings header's."""
    if response.headers.get("Content-Type", "").startswith("application/json"):
        try:
            answer = json.loads(response.body)
        except ValueError:
            answer = None
        listed = answer.get("warnings") if isinstance(answer, dict) else None
        if isinstance(listed, list) and all(isinstance(item, str) for item in listed):
            return listed
    header = response.headers.get(WARNINGS_HEADER, "")
    return [item for item in header.split(WARNING_SEPARATOR) if item.strip()]


def report_warnings(response: HTTPResponse) -> None:
    """The API's warnings on standard error, one ``warning:`` line each."""
    for warning in api_warnings(response):
        print(f"warning: {warning}", file=sys.stderr)


def _private(settings: Settings, folder: str) -> Settings:
    """The settings with a throw-away SQLite store (images included) and an unmetered plan for
    this one request."""
    settings = dataclasses.replace(settings)
    settings.store = dataclasses.replace(settings.store, database_url="", data_dir=folder)
    # The image goes to the throw-away folder too, never into a bucket shared with servers.
    settings.screenshots = dataclasses.replace(settings.screenshots, backend="filesystem")
    settings.server = dataclasses.replace(settings.server)
    settings.plans = {
        **settings.plans,
        CLI_PLAN: PlanSettings(
            badge=False,
            premium=True,
            superior=True,
            requests_per_second=1000.0,
            burst=1000,
            monthly_credits=0,
        ),
    }
    return settings


async def _ask(port: int, key: str, shot: OneShot) -> HTTPResponse | None:
    """The API's answer, or None (said on stderr) when there was none."""
    query = with_output_format(shot.command, shot.params, shot.output)
    query = {**query, "app_id": key}
    if shot.command == "screenshot":
        query["response_type"] = "image"
    path = ROUTES[shot.command].format(quote(shot.url, safe=""))
    progress = asyncio.create_task(_progress(shot.command)) if shot.verbose else None
    try:
        return await AsyncHTTPClient().fetch(
            f"http://127.0.0.1:{port}{path}?{urlencode(query)}",
            request_timeout=REQUEST_TIMEOUT,
            raise_error=False,
        )
    except (HTTPClientError, OSError) as exc:
        print(f"{shot.command} failed: {exc}", file=sys.stderr)
        return None
    finally:
        if progress is not None:
            progress.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await progress


async def _report_failure(settings: Settings, shot: OneShot, response: HTTPResponse) -> None:
    print(f"{shot.command} failed with {response.code}:", file=sys.stderr)
    sys.stderr.write(response.body.decode("utf-8", "replace") + "\n")
    hint = await loopback_hint(settings.fetch.allow_hosts, shot.url, settings.fetch.deny_list())
    if hint:
        print(hint, file=sys.stderr)


async def loopback_hint(
    allow_hosts: Sequence[str], url: str, deny: DenyList | None = None
) -> str | None:
    """How to let Pagecast fetch ``url`` when the SSRF guard refuses it only because its host
    is loopback or private and not listed in ``fetch.allow_hosts``; None otherwise (a metadata
    address or one on the operator's ``deny`` list, which stay refused, or a URL the guard
    accepts)."""
    try:
        host = normalise_url(url)[2]
    except URLRefusedError:
        return None
    entry = f"[{host}]" if ":" in host else host
    resolver = system_resolver()
    try:
        await AddressPolicy(allow_hosts, deny=deny).check(url, resolver)
        return None
    except URLRefusedError as exc:
        if exc.kind is not Refusal.address_not_allowed:
            return None
    except ResolutionError:
        return None
    try:
        await AddressPolicy([*allow_hosts, entry], deny=deny).check(url, resolver)
    except (URLRefusedError, ResolutionError):
        return None
    hosts = [*allow_hosts, entry]
    return (
        f"{host} is refused because Pagecast does not fetch loopback or private addresses "
        "unless the host is listed in the fetch.allow_hosts setting. To allow it, run with "
        f"PAGECAST_FETCH_ALLOW_HOSTS={','.join(hosts)} or set allow_hosts = {json.dumps(hosts)} "
        "under [fetch] in the config file."
    )


async def _lasting_embed(services: Services, body: bytes, shot: OneShot) -> bytes:
    """The oEmbed answer without anything that dies with this command: a hosted card's
    ``frame_url`` and ``embed_id`` are left out and its ``html`` carries the card inline (an
    iframe ``srcdoc``). With ``-o FILE.html``, the page to save: the card itself, or a provider's
    ``html``."""
    answer = json.loads(body)
    frame_url = answer.get("frame_url")
    card = b""
    if isinstance(frame_url, str):
        customer, params = urlsplit(frame_url).path.rstrip("/").split("/")[-2:]
        etag, card = await services.frame_service.card_page(customer, params)
        if not etag:
            raise RuntimeError("the hosted card just made is missing")
        source = f'src="{html.escape(frame_url, quote=True)}"'
        inline = (
            f'srcdoc="{html.escape(card.decode("utf-8"), quote=True)}" sandbox="{CARD_SANDBOX}"'
        )
        if source not in answer["html"]:
            raise RuntimeError("the embed's html does not name its frame")
        answer["html"] = answer["html"].replace(source, inline)
        del answer["frame_url"]
        answer.pop("embed_id", None)
        if shot.verbose:
            print(
                "the hosted card lives only as long as this command: its html is inlined and "
                "frame_url is left out (a running server hands out a lasting frame_url)",
                file=sys.stderr,
            )
    if shot.output is not None and shot.output.suffix.lower() in HTML_EXTENSIONS:
        return card or str(answer.get("html", "")).encode("utf-8")
    return json.dumps(answer, ensure_ascii=False).encode("utf-8")


async def _write(shot: OneShot, body: bytes, credits: str) -> None:
    """The answer to the output file, or to standard output."""
    if shot.output is None or shot.output == STDOUT:
        sys.stdout.flush()
        sys.stdout.buffer.write(body)
        if shot.output is None and not body.endswith(b"\n"):
            sys.stdout.buffer.write(b"\n")
        sys.stdout.buffer.flush()
        where = "standard output"
    else:
        output = shot.output
        await asyncio.get_running_loop().run_in_executor(None, output.write_bytes, body)
        where = str(output)
    if shot.verbose:
        unit = "credit" if credits == "1" else "credits"
        print(f"wrote {len(body)} bytes to {where} ({credits} {unit})", file=sys.stderr)


async def _progress(command: str) -> None:
    """A progress line on stderr while a long request runs (renders take seconds)."""
    started = time.monotonic()
    while True:
        await asyncio.sleep(PROGRESS_EVERY)
        print(f"{command}: working, {time.monotonic() - started:.0f}s", file=sys.stderr)
