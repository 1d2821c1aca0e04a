"""What every handler is given: the server's settings, one service per use case, and the count of
requests in flight. The composition root's ``Services`` provides it; handlers see nothing else."""

from __future__ import annotations

from typing import Protocol

from handlers.settings import ServerSettings
from services.accounts import AccountService
from services.embeds import EmbedService
from services.embeds.frames import FrameService
from services.health import HealthService
from services.jobs.service import JobService
from services.markdown import MarkdownService
from services.screenshots import ScreenshotService
from services.screenshots.deferred import DeferredCaptures
from services.screenshots.signed import SignedLinks
from services.screenshots.with_markdown import OneLoadService
from services.site_map import SiteMapper


class UseCases(Protocol):
    """The services the handlers call, built once by the composition root."""

    @property
    def server(self) -> ServerSettings:
        """The ``[server]`` settings (public addresses, ``strict_params``)."""
        ...

    @property
    def account_service(self) -> AccountService: ...

    @property
    def markdown_service(self) -> MarkdownService: ...

    @property
    def screenshot_service(self) -> ScreenshotService: ...

    @property
    def one_load_service(self) -> OneLoadService:
        """A screenshot and the page's Markdown from one load of the page."""
        ...

    @property
    def signed_links(self) -> SignedLinks:
        """Signing secrets and the check of signed screenshot links."""
        ...

    @property
    def embed_service(self) -> EmbedService: ...

    @property
    def frame_service(self) -> FrameService: ...

    @property
    def map_service(self) -> SiteMapper: ...

    @property
    def jobs(self) -> JobService | None:
        """The jobs use case; None in a process that serves no jobs."""
        ...

    @property
    def deferred_captures(self) -> DeferredCaptures | None:
        """Screenshots captured in the background; None in a process that runs none."""
        ...

    @property
    def health_service(self) -> HealthService: ...

    def request_started(self, *, foreground: bool = True) -> None:
        """Count a request in flight (a foreground one makes the job workers yield)."""
        ...

    def request_finished(self, *, foreground: bool = True) -> None:
        """Count a request done."""
        ...
