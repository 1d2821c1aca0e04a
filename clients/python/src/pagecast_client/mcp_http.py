"""Who may call the MCP server over streamable HTTP, and the listener that holds them to it.

Every request passes three checks before the MCP SDK's app sees it, each refusal a JSON error
(``{"error": {"code", "message"}}``):

- ``403 host_not_allowed``: the ``Host`` header names neither the bound address and port (nor,
  on loopback or a wildcard address, ``localhost``, ``127.0.0.1`` or ``[::1]`` with that port)
  nor a host the operator allowed. A page on another site that rebinds its name to this
  address (DNS rebinding) sends its own name, and is refused.
- ``403 origin_not_allowed``: an ``Origin`` header, when there is one, is neither an allowed
  host's own origin nor one the operator allowed.
- ``401 unauthorized`` (with ``WWW-Authenticate: Bearer``): a token is configured and the
  request has no ``Authorization: Bearer <token>`` with it. The token is the MCP server's own,
  not the Pagecast API key it spends, and is compared in constant time.

A token is required unless the listener is on loopback. Host and Origin are matched by the MCP
SDK's :class:`~mcp.server.transport_security.TransportSecurityMiddleware` (an exact value, or
``name:*`` for any port), and the SDK's app is given the same lists to check again itself.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import uvicorn
from mcp.server.fastmcp import FastMCP
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_VARIABLE = "PAGECAST_MCP_TOKEN"  # noqa: S105 (the variable's name, not a token)
MIN_TOKEN_LENGTH = 16
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
REALM = 'Bearer realm="pagecast-mcp"'
INVALID_TOKEN = f'{REALM}, error="invalid_token"'

log = logging.getLogger("pagecast_client.mcp")


class ExposureError(ValueError):
    """A listener that is not started: beyond loopback without a token, or an unusable token."""


@dataclass(frozen=True)
class HttpAccess:
    """Who may call: the bearer token (``None``: anyone who reaches the listener), and the
    ``Host`` and ``Origin`` values accepted."""

    token: str | None
    hosts: tuple[str, ...]
    origins: tuple[str, ...]

    def transport_security(self) -> TransportSecuritySettings:
        """The same Host and Origin lists as the MCP SDK's own settings."""
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=list(self.hosts),
            allowed_origins=list(self.origins),
        )


def is_loopback(host: str) -> bool:
    """Whether a listen address reaches this machine only: ``localhost``, 127.0.0.0/8, ``::1``."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """Whether a listen address is every interface's (``0.0.0.0``, ``::``), loopback's too."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def authority(host: str, port: int) -> str:
    """``host:port`` as a ``Host`` header writes it: lower case, an IPv6 address in brackets."""
    name = host.strip("[]").lower()
    return f"[{name}]:{port}" if ":" in name else f"{name}:{port}"


def bound_hosts(host: str, port: int) -> list[str]:
    """The ``Host`` values that name the listener: its address and port, and the loopback
    names with that port when it listens on loopback (a wildcard address does too). On port 80
    each also without the port, as clients write it there."""
    names = [authority(host, port)]
    if is_loopback(host) or is_wildcard(host):
        names += [authority(name, port) for name in LOOPBACK_NAMES]
    if port == 80:
        names += [name.rsplit(":", 1)[0] for name in names]
    return names


def origins_of(hosts: Iterable[str]) -> list[str]:
    """The origins a page served from each host has, over http and https."""
    return [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]


def check_token(token: str) -> None:
    """Refuse a token a client could not send in a header, or one short enough to guess."""
    if not (token.isascii() and token.isprintable()) or " " in token:
        raise ExposureError("the MCP token must be printable ASCII without spaces")
    if len(token) < MIN_TOKEN_LENGTH:
        raise ExposureError(f"the MCP token must be at least {MIN_TOKEN_LENGTH} characters long")


def http_access(
    host: str,
    port: int,
    token: str | None = None,
    *,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
) -> HttpAccess:
    """Who may call a listener on ``host:port``, or :class:`ExposureError` when it must not
    start: bound beyond loopback with no token, or with an unusable one. An empty token is
    none."""
    if token:
        check_token(token)
    elif not is_loopback(host):
        raise ExposureError(
            f"{authority(host, port)} is reachable beyond this machine, and MCP over HTTP would "
            "spend the Pagecast API key for anyone who reaches it: set a bearer token "
            f"(--token or ${TOKEN_VARIABLE}), or listen on 127.0.0.1"
        )
    hosts = [*bound_hosts(host, port), *(name.lower() for name in allowed_hosts)]
    origins = [*origins_of(hosts), *(origin.lower().rstrip("/") for origin in allowed_origins)]
    return HttpAccess(token or None, tuple(dict.fromkeys(hosts)), tuple(dict.fromkeys(origins)))


def exposure_warning(host: str, port: int, access: HttpAccess) -> str | None:
    """What to warn the operator of when the listener is reachable beyond this machine."""
    if is_loopback(host):
        return None
    return (
        f"MCP over HTTP listens on {authority(host, port)}, beyond this machine: every caller "
        f"needs the bearer token, and the Host header must be one of {', '.join(access.hosts)} "
        "(--allowed-host adds others)"
    )


def bearer_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries the token, compared in constant time."""
    scheme, _, given = (header or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode()
    )


def refusal(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> Response:
    """A JSON error answer in Pagecast's shape."""
    return JSONResponse({"error": {"code": code, "message": message}}, status, headers)


class HttpGuard:
    """An ASGI app that refuses requests with a foreign ``Host`` or ``Origin``, or without the
    token, before the app it wraps sees them."""

    def __init__(self, app: ASGIApp, access: HttpAccess) -> None:
        self.app = app
        self.access = access
        self.rebinding = TransportSecurityMiddleware(access.transport_security())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refused = await self.check(HTTPConnection(scope))
            if refused is not None:
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def check(self, request: HTTPConnection) -> Response | None:
        """The refusal a request gets, or ``None`` when it may pass."""
        refused = await self.rebinding_refusal(request)
        return refused if refused is not None else self.token_refusal(request)

    async def rebinding_refusal(self, request: HTTPConnection) -> Response | None:
        """403 for a foreign ``Host`` or ``Origin``, as the MCP SDK's checks judge them (its
        own answers are plain text, 421 for a Host)."""
        rebound = await self.rebinding.validate_request(request, is_post=False)
        if rebound is None:
            return None
        if rebound.status_code == 403:
            origin = request.headers.get("origin")
            return refusal(403, "origin_not_allowed", f"Origin {origin} is not allowed")
        host = request.headers.get("host")
        return refusal(403, "host_not_allowed", f"Host {host} is not allowed")

    def token_refusal(self, request: HTTPConnection) -> Response | None:
        """401 when a token is configured and the request does not carry it."""
        token = self.access.token
        header = request.headers.get("authorization")
        if token is None or bearer_matches(header, token):
            return None
        if header is None:
            message, challenge = "Authorization: Bearer <token> is required", REALM
        else:
            message, challenge = "the bearer token is not this server's", INVALID_TOKEN
        return refusal(401, "unauthorized", message, {"WWW-Authenticate": challenge})


async def serve_http(server: FastMCP[Any], access: HttpAccess) -> None:
    """Serve the MCP server's streamable HTTP app behind :class:`HttpGuard`, on the host and
    port of its settings, until the process is told to stop. A listener reachable beyond this
    machine is warned of first."""
    settings = server.settings
    warning = exposure_warning(settings.host, settings.port, access)
    if warning:
        log.warning("%s", warning)
    config = uvicorn.Config(
        HttpGuard(server.streamable_http_app(), access),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
    )
    await uvicorn.Server(config).serve()
