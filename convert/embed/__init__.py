"""oEmbed: the provider registry and its URL schemes (:mod:`~convert.embed.providers`,
:mod:`~convert.embed.schemes`), reading a provider's answer or a page's own embed
(:mod:`~convert.embed.oembed`), the embed snippets Pagecast writes
(:mod:`~convert.embed.snippets`), and the hosted frame card: its content, its layout and its
document (:mod:`~convert.embed.card_content`, :mod:`~convert.embed.card_layout`,
:mod:`~convert.embed.frame_card`)."""

from convert.embed.frame_card import CSP, render_card
from convert.embed.providers import ProviderRegistry, RegistryError

__all__ = ["CSP", "ProviderRegistry", "RegistryError", "render_card"]
