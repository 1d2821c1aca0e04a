"""Pagecast's own list of cookie-consent banners: the containers and overlays the common consent
platforms render (hidden by CSS injected before the page paints, with scrolling re-enabled) and
the loader scripts that are safe to block outright.

Written from the platforms' documented markup; pages that gate their content on a consent
platform (Sourcepoint, TrustArc walls) keep their loader running and only lose the banner.
"""

from __future__ import annotations

import functools

# Platform -> selectors of its banner, dialog and backdrop elements.
BANNERS: dict[str, tuple[str, ...]] = {
    "OneTrust": (
        "#onetrust-banner-sdk",
        "#onetrust-consent-sdk",
        "#onetrust-pc-sdk",
        ".onetrust-pc-dark-filter",
    ),
    "Cookiebot": ("#CybotCookiebotDialog", "#CybotCookiebotDialogBodyUnderlay"),
    "Usercentrics": ("#usercentrics-root", "#usercentrics-cmp-ui"),
    "Quantcast": ("#qc-cmp2-container", "#qc-cmp2-main"),
    "Didomi": ("#didomi-host", "#didomi-popup", "#didomi-notice", ".didomi-popup-backdrop"),
    "TrustArc": (
        "#truste-consent-track",
        ".truste_popframe",
        ".truste_overlay",
        ".truste_box_overlay",
        ".trustarc-banner-container",
    ),
    "Sourcepoint": (
        'div[id^="sp_message_container_"]',
        "#sp_privacy_manager_container",
    ),
    "iubenda": ("#iubenda-cs-banner",),
    "Osano": (".osano-cm-window", ".osano-cm-dialog"),
    "CookieYes": (".cky-consent-container", ".cky-overlay"),
    "consentmanager": ("#cmpbox", "#cmpbox2"),
    "Termly": ("#termly-code-snippet-support",),
    "Complianz": ("#cmplz-cookiebanner-container",),
    "Borlabs": ("#BorlabsCookieBox",),
    "Klaro": (".klaro",),
    "Google Funding Choices": (".fc-consent-root",),
}

# Loader scripts whose absence leaves the page usable: blocking them avoids the banner's flash
# and its network work. Sourcepoint and TrustArc are left out on purpose (content waits on them).
LOADERS: tuple[str, ...] = tuple(
    f"{scheme}://{place}*"
    for place in (
        "cdn.cookielaw.org/",
        "geolocation.onetrust.com/",
        "cookie-cdn.cookiepro.com/",
        "consent.cookiebot.com/",
        "consentcdn.cookiebot.com/",
        "app.usercentrics.eu/",
        "privacy-proxy.usercentrics.eu/",
        "cmp.quantcast.com/",
        "sdk.privacy-center.org/",
        "cdn.iubenda.com/cs/",
        "cmp.osano.com/",
        "cdn-cookieyes.com/",
        "cdn.consentmanager.net/",
        "app.termly.io/",
    )
    for scheme in ("http", "https")
)
"""As URL patterns of Chromium's request interception (``*``: any run of characters)."""


@functools.cache
def banner_css() -> str:
    """CSS hiding every known banner and, on a page that has one, undoing the scroll locks
    consent platforms apply.

    The unlock is scoped with ``:has()`` to documents holding a banner: made unconditional, it
    turns every page's body into a scroll container of its own (``overflow`` set on both the
    root and the body), which costs every capture compositing work and changes the layout of
    pages that size their body to the viewport. Built once: every capture asks for it."""
    selectors = ",\n".join(selector for group in BANNERS.values() for selector in group)
    return (
        f"{selectors} {{ display: none !important; visibility: hidden !important; }}\n"
        f":root:has({selectors}),\n:root:has({selectors}) > body "
        "{ overflow: auto !important; position: static !important; }\n"
    )


# -- banners no list knows ------------------------------------------------------------------
# A consent notice of a site's own making has no known selector: it is read by what it says (the
# words of NOTICE_WORDS, and what for: NOTICE_PURPOSES) and what it offers (a control whose
# whole text is one of CHOICE_WORDS), in a small block (NOTICE_MAX_CHARS). A screenshot also
# asks that the block be fixed or sticky near the top or bottom of the viewport (NOTICE_EDGE);
# Markdown reads markup without a layout.
# The patterns are written in the syntax Python's re and JavaScript's RegExp share: the browser
# reads the same words.

NOTICE_PURPOSES = (
    r"\b(?:experience|privacy|personal|data|partners|analytics|advertising|ads|traffic"
    r"|brows(?:er|ing)|device|(?:web)?site|statistics|tracking|preferences|settings"
    r"|datenschutz|daten|webseite|erfahrung|expérience|données|navigation|sitio|datos"
    r"|navegación|esperienza|dati|navigazione|gegevens|ervaring|dados|experiência)\b"
)
"""What a consent notice says cookies are for: a recipe's "cookie dough" tip is not one."""

NOTICE_WORDS = (
    r"\b(?:cookies?|cookie-\w+|consent|gdpr|dsgvo|rgpd|einwilligung|zustimmung|consentement"
    r"|consentimiento|consenso|toestemming|tracking technolog\w*|traceurs)\b"
)
"""What a consent notice speaks of, case-insensitive, anywhere in its text."""

CHOICE_WORDS = (
    r"^\s*(?:(?:i\s+)?accept(?:\s+all)?(?:\s+cookies)?|accept\s+(?:and|&)\s+(?:close|continue)"
    r"|allow(?:\s+all)?(?:\s+cookies)?|(?:i\s+)?agree|agree\s+(?:and|&)\s+(?:close|continue)"
    r"|got\s+it|ok(?:ay)?|understood|(?:reject|decline|deny|refuse)(?:\s+all)?(?:\s+cookies)?"
    r"|(?:use\s+)?(?:only\s+)?(?:strictly\s+)?(?:necessary|essential)(?:\s+cookies)?(?:\s+only)?"
    r"|(?:manage|customi[sz]e)(?:\s+(?:cookies|preferences|settings|options|choices))?"
    r"|cookie\s+(?:settings|preferences)|alle\s+(?:akzeptieren|ablehnen)|akzeptieren|ablehnen"
    r"|zustimmen|einverstanden|(?:tout\s+)?(?:accepter|refuser)|j'accepte"
    r"|(?:aceptar|rechazar)(?:\s+(?:todo|todas))?|(?:accetta|rifiuta)(?:\s+tutto)?"
    r"|(?:alles\s+)?accepteren|weigeren|(?:aceitar|rejeitar)(?:\s+tudo)?)\s*[.!]?\s*$"
)
"""The whole text of a control that answers a consent notice, case-insensitive."""

NOTICE_MAX_CHARS = 1200
"""Most characters of a consent notice's text: more is content that mentions cookies."""

NOTICE_CLIMB = 6
"""Most ancestors climbed from an answering control to the block that speaks of consent."""

NOTICE_EDGE = 0.3
"""A fixed or sticky notice starts within this share of the viewport from its top, or ends
within it from its bottom."""
