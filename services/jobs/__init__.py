"""Batch and crawl jobs: their settings (:mod:`services.jobs.settings`), the use case the
endpoints call (:mod:`services.jobs.service`) and the runner that works their pages in the
background (:mod:`services.jobs.runner`)."""
