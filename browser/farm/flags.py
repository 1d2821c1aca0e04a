"""Chromium's command line in the farm: Playwright's switches, the farm's own, and the features
both turn off; and the user agents the farm's contexts present."""

from __future__ import annotations

from browser.farm.settings import FarmSettings

PLAYWRIGHT_DISABLED_FEATURES: tuple[str, ...] = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
"""The features Playwright's own --disable-features switch turns off (its chromiumSwitches)."""
DISABLED_FEATURES: tuple[str, ...] = (
    # Every new context gets a browser window whose omnibox popups (the address bar's
    # drop-downs, WebUI pages) are preloaded in a renderer of their own: about 0.3 s of CPU and
    # a process per context that no capture ever shows.
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
    "WebUIOmniboxFullPopup",
)
"""Chromium features the farm turns off."""

LAUNCH_ARGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-dev-shm-usage",
    # Site isolation off: a page's cross-site frames then share its renderer instead of getting
    # one each, so one page is one renderer and page_memory_mb (enforced per renderer by the
    # watchdog) bounds the whole page, not each of its frames. Organizations stay apart: each
    # request has its own browser context, and contexts never share a renderer. This switch
    # alone is enough (a page with cross-site frames gets no out-of-process frame), so
    # IsolateOrigins and site-per-process are not among the disabled features below.
    "--disable-site-isolation-trials",
    # Playwright passes a --disable-features list of its own and Chromium keeps only the last
    # such switch: this one repeats Playwright's (a test checks it still does) and adds the
    # features the farm turns off.
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + DISABLED_FEATURES),
    # One renderer per context: a context's next page (a warm page's next site, after its blank
    # document) reuses the renderer it has instead of starting another, which Chromium would
    # otherwise do for every navigation to another site. A limit, not a pool: renderers are
    # never shared between contexts, so a context without one still gets its own.
    "--renderer-process-limit=1",
)


def launch_args(settings: FarmSettings) -> list[str]:
    """Chromium's command line: LAUNCH_ARGS and script's heap limited to half a page's share."""
    return [*LAUNCH_ARGS, f"--js-flags=--max-old-space-size={settings.page_memory_mb // 2}"]


def user_agents(version: str) -> tuple[str, str]:
    """The (desktop, mobile) user agents of this Chromium, in Chrome's reduced form; headless
    Chromium's own says "HeadlessChrome", which many sites answer with a bot wall."""
    major = version.split(".", 1)[0] or "0"
    desktop = (
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
        f"Chrome/{major}.0.0.0 Safari/537.36"
    )
    mobile = (
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
        f"Chrome/{major}.0.0.0 Mobile Safari/537.36"
    )
    return desktop, mobile
