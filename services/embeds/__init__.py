"""The oEmbed use case: a URL as an embed, from its native provider, a discovery link on the
page, or a hosted frame built from the page's metadata (SPEC 4.2); and the hosted frames.

- :mod:`~services.embeds.service`: :class:`EmbedService`, the answer end to end (memory, tiers,
  frame, price) for an :class:`OembedRequest`;
- :mod:`~services.embeds.tiers`: :class:`EmbedResolver`, the tiers one by one, and the
  ``[oembed]`` settings;
- :mod:`~services.embeds.frames`: :class:`FrameService`, the hosted frames (built, listed,
  refreshed, deleted) and their card pages on the frame host;
- :mod:`~services.embeds.answer_cache`: resolved answers kept in memory for a short while.
"""

from convert.embed.oembed import TEMPLATE_SIZES
from services.embeds.answer_cache import AnswerCache
from services.embeds.frames import FrameError, FrameFailure, FrameService
from services.embeds.service import (
    DEFAULT_MAX_CACHE_AGE_MS,
    EmbedService,
    OembedAnswer,
    OembedOptions,
    OembedRequest,
)
from services.embeds.tiers import (
    EmbedError,
    EmbedFailure,
    EmbedRequest,
    EmbedResolver,
    OembedSettings,
)

__all__ = [
    "DEFAULT_MAX_CACHE_AGE_MS",
    "TEMPLATE_SIZES",
    "AnswerCache",
    "EmbedError",
    "EmbedFailure",
    "EmbedRequest",
    "EmbedResolver",
    "EmbedService",
    "FrameError",
    "FrameFailure",
    "FrameService",
    "OembedAnswer",
    "OembedOptions",
    "OembedRequest",
    "OembedSettings",
]
