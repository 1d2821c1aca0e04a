"""The oEmbed provider registry this server uses: the built-in providers, overridden and extended
by the registry ``server.py providers import`` keeps (where :func:`registry_path` says)."""

from __future__ import annotations

import logging
from pathlib import Path

from app.config import Settings
from convert.embed.providers import ProviderRegistry, RegistryError
from services.embeds.provider_files import builtin_providers, load_registry_file

log = logging.getLogger(__name__)


def registry_path(settings: Settings) -> Path:
    """Where ``server.py providers import`` keeps the imported provider registry."""
    configured = settings.oembed.registry_file
    return Path(configured) if configured else Path(settings.store.data_dir) / "providers.json"


def load_providers(settings: Settings) -> ProviderRegistry:
    """The built-in providers, overridden and extended by the imported registry when there is
    one (a broken import is logged and skipped: the built-in list still works)."""
    providers = builtin_providers()
    path = registry_path(settings)
    if path.exists():
        try:
            imported, problems = load_registry_file(path)
        except RegistryError as exc:
            log.error("the imported provider registry %s is unusable: %s", path.name, exc)
        else:
            providers = providers + imported
            log.info(
                "provider registry: %d built in, %d imported (%d problems skipped)",
                len(builtin_providers()),
                len(imported),
                len(problems),
            )
    return ProviderRegistry(providers)
