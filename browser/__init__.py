"""Getting pages: the curl fetcher (:mod:`browser.fetch`), the Chromium farm
(:mod:`browser.farm`), and the egress guard every browser request leaves through
(:mod:`browser.egress`). Both ways out share one SSRF rule (:mod:`browser.ssrf` over
:mod:`browser.resolver`) and the proxy tiers (:mod:`browser.proxies`). Failures are this
package's own kinds (:class:`~browser.fetch.FetchError`, :class:`~browser.farm.FarmErrorKind`);
it never imports the services, the handlers or the root."""
