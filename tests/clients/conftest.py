"""One real Pagecast for the whole package (client, MCP server, loaders): started once, since
a server with its Chromium takes seconds to come up."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.clients.pagecast_site import Site, running_pagecast


@pytest.fixture(scope="package")
def site() -> Iterator[Site]:
    with running_pagecast() as running:
        yield running
