"""Pagecast: web page screenshots, oEmbed embeds and Markdown, served from one process.

``python server.py`` runs the server (API, frame host and metrics listeners on one IOLoop);
``python server.py config`` prints the settings in effect and where each comes from (``--defaults``:
the commented default ``config.toml``); ``python server.py keys create|list|revoke|signing-secret``
manages API keys; ``usage`` and ``providers`` report and import; ``markdown``, ``oembed`` and
``screenshot`` answer one request without a server; ``crawl`` writes a site as Markdown files
without one; ``mcp`` serves Pagecast's tools to agents over MCP (the Python client's MCP server,
pointed at this server's API).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from app.admin import keys_command, providers_command, usage_command
from app.allocator import release_large_blocks
from app.config import (
    Settings,
    load_settings,
    render_config,
    render_reference,
    splice_reference,
)
from app.crawl_cli import CrawlCommand, run_crawl
from app.effective import render_effective, unknown_variables
from app.oneshot import OneShot, parameters_help, parse_pairs, run_once
from app.services import close_services, open_services
from app.web import make_api_app, make_frame_app, make_metrics_app, make_server
from handlers.base import RequestIdFilter
from settings.fields import SettingsError

log = logging.getLogger("pagecast")

DEFAULT_CONFIG = Path(__file__).resolve().parent / "config.toml"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, request id, message, and for access lines
    their fields (status, endpoint, org, credits, duration, tier, render...)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "request_id": getattr(record, "request_id", "-"),
            "message": record.getMessage(),
        }
        access = getattr(record, "access", None)
        if isinstance(access, dict):
            line.update(access)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure_logging(level: str, log_format: str = "text") -> None:
    """Log lines with time, level, logger and request id on stderr (journald keeps them), as
    text or as JSON objects."""
    handler = logging.StreamHandler()
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(
        JsonFormatter()
        if log_format == "json"
        else logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("tornado.access").setLevel(logging.WARNING)


async def serve(settings: Settings) -> None:
    """Run until SIGTERM or SIGINT, then drain in-flight requests and close everything."""
    server_settings = settings.server
    release_large_blocks()
    own = [
        (server_settings.host, server_settings.port),
        (server_settings.host, server_settings.frame_port),
        (server_settings.metrics_host, server_settings.metrics_port),
    ]
    services = await open_services(settings, own)
    listeners = [
        (make_api_app(services), server_settings.host, server_settings.port, "api"),
        (make_frame_app(services), server_settings.host, server_settings.frame_port, "frame host"),
        (
            make_metrics_app(services),
            server_settings.metrics_host,
            server_settings.metrics_port,
            "metrics",
        ),
    ]
    servers = []
    for app, host, port, name in listeners:
        server = make_server(app, xheaders=server_settings.xheaders)
        server.listen(port, host)
        servers.append(server)
        log.info("%s listening on http://%s:%d", name, host, port)
    api = server_settings.public_base_url()
    log.info(
        "Pagecast ready: API %s, playground %s/, API reference %s/docs, frames %s",
        api,
        api,
        api,
        server_settings.public_frame_host(),
    )

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()

    log.info("shutting down: no new connections, draining %d request(s)", services.in_flight)
    services.draining = True
    for server in servers:
        server.stop()
    if not await services.wait_idle(server_settings.shutdown_timeout):
        log.warning("%d request(s) still running at the shutdown deadline", services.in_flight)
    for server in servers:
        try:
            await asyncio.wait_for(server.close_all_connections(), 5)
        except TimeoutError:
            log.warning("connections did not close in time")
    await close_services(services)
    log.info("stopped")


ONE_SHOTS = {
    "screenshot": "one screenshot without a server (-o FILE is required; -o - for stdout)",
    "markdown": "one page as Markdown without a server",
    "oembed": "one oEmbed answer without a server",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="server.py", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config",
        type=Path,
        default=os.environ.get("PAGECAST_CONFIG"),
        help="config file (default: $PAGECAST_CONFIG, else config.toml beside server.py)",
    )
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("serve", help="run the server (the default)")
    config = commands.add_parser(
        "config",
        help="print the effective settings and where each comes from (file, environment)",
    )
    config.add_argument(
        "--defaults",
        action="store_true",
        help="print the commented config.toml with every default instead",
    )
    config.add_argument(
        "--markdown", action="store_true", help="print the configuration reference in Markdown"
    )
    config.add_argument(
        "--into", type=Path, help="with --markdown: replace the reference kept in this file"
    )
    keys = commands.add_parser("keys", help="manage API keys")
    key_commands = keys.add_subparsers(dest="keys_command", required=True)
    create = key_commands.add_parser("create", help="issue a key; prints it once, on the last line")
    create.add_argument("--org", required=True, help="organization name (created if new)")
    create.add_argument("--plan", default="free", help="plan of the organization (default: free)")
    key_commands.add_parser("list", help="list keys: prefix, org, plan, created, revoked")
    revoke = key_commands.add_parser("revoke", help="revoke a key by its prefix")
    revoke.add_argument("prefix")
    signing = key_commands.add_parser(
        "signing-secret", help="print the signing secret of a key's signed screenshot links"
    )
    signing.add_argument("prefix")
    for name, text in ONE_SHOTS.items():
        one = commands.add_parser(
            name,
            help=text,
            description=text[0].upper() + text[1:] + ".",
            epilog=parameters_help(name),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        one.add_argument("url", help="the page (http or https)")
        one.add_argument("params", nargs="*", metavar="name=value", help="API parameters")
        one.add_argument(
            "-o", "--output", type=Path, help="write the answer to this file (- for stdout)"
        )
        one.add_argument(
            "-v", "--verbose", action="store_true", help="also log and report progress on stderr"
        )
    crawl = commands.add_parser(
        "crawl",
        help="a site as Markdown files without a server, with a progress bar",
        description="Crawl a site breadth first from URL (its host only, robots.txt obeyed) "
        "and write each page as DIR/<path>.md, with DIR/index.json listing every page.",
        epilog="Markdown parameters for every page may follow as name=value "
        "(see `server.py markdown --help`).",
    )
    crawl.add_argument("url", help="the start page (http or https)")
    crawl.add_argument("params", nargs="*", metavar="name=value", help="Markdown parameters")
    crawl.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    crawl.add_argument("--max-pages", type=int, default=100, help="most pages (default 100)")
    crawl.add_argument("--max-depth", type=int, default=3, help="most links deep (default 3)")
    crawl.add_argument(
        "--include", action="append", default=[], metavar="GLOB", help="paths to crawl"
    )
    crawl.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB", help="paths to leave out"
    )
    crawl.add_argument("--subdomains", action="store_true", help="follow subdomains too")
    usage = commands.add_parser("usage", help="credits by organization and endpoint")
    usage.add_argument("--org", help="one organization")
    usage.add_argument(
        "--month", help="one month, YYYY-MM, or all (default: the current month, UTC)"
    )
    mcp = commands.add_parser(
        "mcp",
        help="Pagecast's tools for agents over MCP (stdio or streamable HTTP): pagecast-mcp "
        "pointed at this server; its options follow (mcp --help)",
        add_help=False,
    )
    mcp.add_argument("options", nargs=argparse.REMAINDER, help="pagecast-mcp's options")
    providers = commands.add_parser("providers", help="manage the oEmbed provider registry")
    provider_commands = providers.add_subparsers(dest="providers_command", required=True)
    importer = provider_commands.add_parser(
        "import", help="import a providers.json (the oembed.com registry format)"
    )
    importer.add_argument("file", type=Path)
    return parser


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; a one-shot's parameters may come before, between or after its options
    (``screenshot URL -o shot.png format=png``), so what argparse leaves over is theirs."""
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if rest and args.command not in (*ONE_SHOTS, "crawl", "mcp"):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command in (*ONE_SHOTS, "crawl"):
        args.params = [*args.params, *rest]
    if args.command == "mcp":
        args.options = [*rest, *args.options]
    return args


def _static_config(args: argparse.Namespace) -> int:
    """``config --defaults`` and ``config --markdown [--into FILE]``: what the declarations say,
    whatever the environment holds."""
    if args.into and not args.markdown:
        print("--into needs --markdown", file=sys.stderr)
        return 2
    if not args.markdown:
        sys.stdout.write(render_config())
    elif args.into:
        try:
            updated = splice_reference(args.into.read_text(), render_reference())
        except (OSError, ValueError) as exc:
            print(f"cannot update {args.into}: {exc}", file=sys.stderr)
            return 1
        args.into.write_text(updated)
    else:
        sys.stdout.write(render_reference())
    return 0


def _one_shot(settings: Settings, args: argparse.Namespace) -> int:
    try:
        params = parse_pairs(args.params)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.command == "screenshot" and args.output is None:
        print("a screenshot needs -o FILE (-o - writes it to standard output)", file=sys.stderr)
        return 2
    shot = OneShot(args.command, args.url, params, args.output, args.verbose)
    return asyncio.run(run_once(settings, shot))


def _mcp(settings: Settings, args: argparse.Namespace) -> int:
    """``mcp [pagecast-mcp options]``: the client package's MCP server, talking to this
    server's API unless told another URL."""
    client_source = Path(__file__).resolve().parent / "clients" / "python" / "src"
    if str(client_source) not in sys.path:
        sys.path.append(str(client_source))  # the checkout's client, when none is installed
    try:
        from pagecast_client.mcp_server import main as mcp_main  # noqa: PLC0415
    except ImportError as exc:
        print(
            f"the MCP server needs the mcp package ({exc}): pip install './clients/python[mcp]'",
            file=sys.stderr,
        )
        return 2
    return mcp_main(args.options, default_url=settings.server.public_base_url())


def _crawl(settings: Settings, args: argparse.Namespace) -> int:
    try:
        params = parse_pairs(args.params)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    command = CrawlCommand(
        url=args.url,
        out=args.out,
        max_pages=args.max_pages,
        max_depth=args.max_depth,
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        subdomains=args.subdomains,
        options=params,
    )
    return asyncio.run(run_crawl(settings, command))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.command == "config" and (args.defaults or args.markdown or args.into):
        return _static_config(args)
    config_path = args.config or (DEFAULT_CONFIG if DEFAULT_CONFIG.exists() else None)
    sources: dict[str, dict[str, str]] = {}
    try:
        settings = load_settings(config_path, sources=sources)
    except SettingsError as exc:
        print(exc, file=sys.stderr)
        return 2
    unknown = unknown_variables(settings, os.environ)
    if args.command == "config":
        sys.stdout.write(render_effective(settings, sources, config_path, unknown))
        return 0
    # A one-shot prints its result and nothing else, unless asked to tell more.
    quiet = args.command == "crawl" or (args.command in ONE_SHOTS and not args.verbose)
    level = settings.server.log_level
    configure_logging(
        "warning" if quiet and level in ("debug", "info") else level, settings.server.log_format
    )
    for line in unknown:
        log.warning("%s", line)
    if args.command == "keys":
        return keys_command(settings, args)
    if args.command in ONE_SHOTS:
        return _one_shot(settings, args)
    if args.command == "usage":
        return usage_command(settings, args)
    if args.command == "crawl":
        return _crawl(settings, args)
    if args.command == "providers":
        return providers_command(settings, args)
    if args.command == "mcp":
        return _mcp(settings, args)
    asyncio.run(serve(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
