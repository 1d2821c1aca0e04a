"""Whether a browser may load a target: the SSRF guard's verdict on its address, asked before
the farm navigates (the egress guard then checks every request the page makes too), and the
ports browsers refuse, judged from the URL alone before anything else."""

from __future__ import annotations

import enum
from urllib.parse import urlsplit

from browser.fetch.client import Fetcher
from browser.ssrf import URLRefusedError
from browser.unsafe_ports import unsafe_port_service
from services.failure import ServiceError


class TargetProblem(enum.Enum):
    """Why a target may not be loaded."""

    MALFORMED = "malformed"
    """Not a URL the guard can read."""
    NOT_ALLOWED = "not_allowed"
    """Its address is refused by the address policy."""
    UNRESOLVED = "unresolved"
    """Its host could not be resolved."""


class TargetRefusedError(ServiceError):
    """A target the browser must not load; ``message`` is safe to show."""


async def check_target(fetcher: Fetcher, url: str) -> None:
    """Raise :class:`TargetRefusedError` unless the fetcher's address policy allows ``url``."""
    try:
        await fetcher.policy.check(url, fetcher.resolver)
    except URLRefusedError as exc:
        problem = (
            TargetProblem.MALFORMED
            if exc.kind.value == "invalid_url"
            else TargetProblem.NOT_ALLOWED
        )
        raise TargetRefusedError(problem, exc.message) from exc
    except Exception as exc:  # the resolver's failures, whatever their type
        raise TargetRefusedError(
            TargetProblem.UNRESOLVED, "the target host could not be resolved"
        ) from exc


def unsafe_port_refusal(port: int | None) -> str | None:
    """Why a target on ``port`` is refused before any fetch: browsers refuse that port
    (:mod:`browser.unsafe_ports`); None for any other port."""
    service = unsafe_port_service(port)
    if service is None:
        return None
    return (
        f"the target URL's port {port} ({service}) is one browsers refuse to load; "
        "Pagecast does not fetch it"
    )


def unsafe_url_refusal(url: str) -> str | None:
    """:func:`unsafe_port_refusal` for the port ``url`` names (None for a URL without a
    readable port: its other faults are told where it is read)."""
    try:
        port = urlsplit(url).port
    except ValueError:
        return None
    return unsafe_port_refusal(port)
