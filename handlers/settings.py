"""The ``[server]`` settings: the listeners and their public addresses, how requests are read
(``strict_params``, ``xheaders``), shutdown, logging, whether metrics name organizations and the
metrics listener's token."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from settings.fields import setting


@dataclass
class ServerSettings:
    """Listeners and public addresses. The API and the frame host are separate origins."""

    SECTION: ClassVar[str] = "server"
    host: str = setting("127.0.0.1", "Address the API and frame-host listeners bind to.")
    port: int = setting(8080, "Port of the API listener.", min=1, max=65535)
    frame_port: int = setting(8081, "Port of the frame-host listener.", min=1, max=65535)
    metrics_host: str = setting("127.0.0.1", "Address the Prometheus metrics listener binds to.")
    metrics_port: int = setting(9108, "Port of the metrics listener (/metrics).", min=1, max=65535)
    metrics_org_labels: bool = setting(
        False,
        "Name the organization in the org label of per-organization metrics "
        "(pagecast_credits_total). false (the default): the label stays, with the value - for "
        "everyone, so every organization's credits add up in one series per endpoint, "
        "dashboards keep their queries and no customer name reaches the metrics. true: one "
        "series per organization and endpoint, named.",
    )
    metrics_token: str = setting(
        "",
        "Bearer token the metrics listener asks for: when set, /metrics answers 401 unless the "
        "request sends Authorization: Bearer TOKEN (compared in constant time; the listener's "
        "/healthz and /readyz stay open). Empty: /metrics is open to whoever reaches "
        "metrics_host:metrics_port. Prefer the environment variable "
        "PAGECAST_SERVER_METRICS_TOKEN to writing it here.",
        secret=True,
    )
    public_readiness_details: bool = setting(
        False,
        "Answer /readyz's details (the failed checks' reasons, free disk, process memory, the "
        "farm's account: browser version and PID, pages, queue) on the API and frame-host "
        "listeners too. false (the default): there /readyz answers its status, its HTTP code "
        "and which checks passed, and the details only on the metrics listener (which asks for "
        "metrics_token when one is set).",
    )
    base_url: str = setting(
        "", "Public URL of the API, used in links such as screenshotUrl. Empty: http://host:port."
    )
    frame_host: str = setting(
        "", "Public URL of the frame host, used in frame_url. Empty: http://host:frame_port."
    )
    xheaders: bool = setting(
        False, "Trust X-Forwarded-For and X-Real-Ip from a reverse proxy in front of Pagecast."
    )
    shutdown_timeout: float = setting(
        10.0, "Seconds in-flight requests may take to finish after SIGTERM.", min=0, max=600
    )
    log_level: str = setting(
        "info", "Lowest level logged.", choices=("debug", "info", "warning", "error")
    )
    log_format: str = setting(
        "text",
        "text: readable lines; json: one JSON object per line (for journald and log shippers).",
        choices=("text", "json"),
    )
    strict_params: bool = setting(
        False,
        "Answer a request that sends a parameter its endpoint does not know with 400 "
        "(invalid_parameter) instead of a warning (X-Pagecast-Warnings and a warnings list).",
    )

    def public_base_url(self) -> str:
        return (self.base_url or f"http://{self.host}:{self.port}").rstrip("/")

    def public_frame_host(self) -> str:
        return (self.frame_host or f"http://{self.host}:{self.frame_port}").rstrip("/")
