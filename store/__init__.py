"""Persistence: database, models, keys, usage, the page cache, stored images, frames and jobs.

The modules, each with one job:

- :mod:`store.db`: the store's settings and opening a SQLite or Postgres database;
- :mod:`store.models`: the Peewee models (tables) and the error types of the drivers;
- :mod:`store.migrations`: numbered schema steps and :func:`~store.migrations.migrate`;
- :mod:`store.keys`: API key issue, hashing, listing, revocation, lookup and the lookup cache;
- :mod:`store.usage`: in-memory usage aggregation and its upserts into the usage table;
- :mod:`store.cache`: the page cache (compressed fetched pages) and its eviction;
- :mod:`store.results`: the kept Markdown answers (compressed, per page version and options);
- :mod:`store.bounded`: what both of those share: the newer copy's write, the byte-bounded eviction;
- :mod:`store.images`: where screenshot bytes live (files, or :mod:`store.objects` in a bucket);
- :mod:`store.screenshots`: screenshot rows, links and their janitor;
- :mod:`store.strategy`: the learned fetch strategy per target domain;
- :mod:`store.frames`: hosted frames' rows;
- :mod:`store.installation`: the installation's secrets (frames, signed links);
- :mod:`store.async_captures`: screenshots captured in the background, their state and result;
- :mod:`store.job_types`: the states of jobs and pages, and the rows the job store takes and gives;
- :mod:`store.jobs`: jobs and their pages: queueing, leases, results in finishing order;
- :mod:`store.job_views`: a job's progress and results as read, and the retention sweep;
- :mod:`store.job_stops`: a job ended early: cancelled, or stopped for its plan;
- :mod:`store.webhook_events`: webhook events waiting to be delivered, bounded per organization;
- :mod:`store.threads`: database work off the IOLoop, every wait bounded;
- :mod:`store.periodic`: work repeated on the IOLoop (flushes, eviction, janitors, sweeps);
- :mod:`store.store`: the :class:`~store.store.Store` service the server and the CLI use.

Nothing is imported here: importing one module does not open the others.
"""
