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
from app.cli_parser import ONE_SHOTS, parse_args
from app.config import (
    Settings,
    load_settings,
    render_config,
    render_reference,
    splice_reference,
)
from app.crawl_cli import CrawlCommand, run_crawl
from app.effective import render_effective, unknown_variables
from app.oneshot import OneShot, run_once
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
    shot = OneShot(args.command, args.url, args.params, args.output, args.verbose)
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
    command = CrawlCommand(
        url=args.url,
        out=args.out,
        max_pages=args.max_pages,
        max_depth=args.max_depth,
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        subdomains=args.subdomains,
        options=args.params,
    )
    return asyncio.run(run_crawl(settings, command))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv, description=(__doc__ or "").splitlines()[0])
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
