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
