"""Batch and crawl jobs: their settings (:mod:`~services.jobs.settings`), the use case the
endpoints call (:mod:`~services.jobs.service`: check, submit, read, cancel), the runner that
claims their pages in the background (:mod:`~services.jobs.runner`), the monthly bounds it
checks (:mod:`~services.jobs.quota`), a page worked to its outcome (:mod:`~services.jobs.pages`),
what a crawl adds (:mod:`~services.jobs.crawl`), what the runner is given
(:mod:`~services.jobs.work`) and what it logs and counts (:mod:`~services.jobs.observe`)."""
