"""Site discovery for map and crawl: URLs as deduplication keys with tracking parameters
dropped (:mod:`~convert.crawl.urls`), a crawl's scope (:mod:`~convert.crawl.scope`), robots.txt
(:mod:`~convert.crawl.robots`), sitemaps (:mod:`~convert.crawl.sitemaps`), a page's links
(:mod:`~convert.crawl.links`), and the steps that run in a conversion worker
(:mod:`~convert.crawl.discovery`)."""

from convert.crawl.robots import RobotsRules
from convert.crawl.scope import CrawlScope, PatternError, check_patterns
from convert.crawl.urls import CrawlURLError, clean_url, url_key

__all__ = [
    "CrawlScope",
    "CrawlURLError",
    "PatternError",
    "RobotsRules",
    "check_patterns",
    "clean_url",
    "url_key",
]
