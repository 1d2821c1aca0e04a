"""The Peewee models: one class per table.

Models are bound to no database. Every query names the database it runs on (``.execute(db)``,
``.first(db)``), so two stores on two databases in one process can never mix up their rows, and a
query that forgets its database fails loudly instead of using some global connection.

Datetimes are stored as naive UTC; :func:`utc_now` makes them and :func:`as_utc` reads them back.
"""

from __future__ import annotations

from datetime import UTC, datetime

import peewee


def utc_now() -> datetime:
    """The current time as stored: naive, in UTC."""
    return datetime.now(UTC).replace(tzinfo=None)


def as_utc(value: datetime) -> datetime:
    """A stored (naive UTC) datetime as an aware one."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class BaseModel(peewee.Model):
    """Common options: snake_case table names (``api_key``, not ``apikey``)."""

    class Meta:
        legacy_table_names = False


class SchemaVersion(BaseModel):
    """One row per applied migration step."""

    version = peewee.IntegerField(primary_key=True)
    description = peewee.CharField(max_length=200)
    applied_at = peewee.DateTimeField(default=utc_now)


class Organization(BaseModel):
    """A customer: owns API keys, frames and usage; its plan sets limits and credits."""

    id = peewee.AutoField()

    name = peewee.CharField(max_length=100, unique=True)
    plan = peewee.CharField(max_length=50)
    created_at = peewee.DateTimeField(default=utc_now)


class ApiKey(BaseModel):
    """An issued API key. Only its sha256 is kept; the prefix identifies it to operators."""

    id = peewee.AutoField()

    key_hash = peewee.CharField(max_length=64, unique=True)
    prefix = peewee.CharField(max_length=16, unique=True)
    org = peewee.ForeignKeyField(Organization, backref="keys", index=True)
    created_at = peewee.DateTimeField(default=utc_now)
    revoked_at = peewee.DateTimeField(null=True)


class Usage(BaseModel):
    """Requests and credits of one organization on one endpoint on one UTC day."""

    id = peewee.AutoField()

    org = peewee.ForeignKeyField(Organization, backref="usage")
    endpoint = peewee.CharField(max_length=64)
    day = peewee.DateField()
    requests = peewee.BigIntegerField(default=0)
    credits = peewee.BigIntegerField(default=0)

    class Meta:
        indexes = ((("org", "endpoint", "day"), True),)


class PageCache(BaseModel):
    """A fetched page kept for reuse (see :mod:`store.cache`), under the hash of its normalized
    URL and fetch-affecting parameters."""

    key = peewee.CharField(max_length=64, primary_key=True)

    url = peewee.TextField()
    final_url = peewee.TextField()
    status = peewee.IntegerField()
    content_type = peewee.TextField()
    headers = peewee.TextField()  # a JSON object of the few headers kept
    tier = peewee.TextField(null=True)
    body = peewee.BlobField()  # zlib-compressed
    body_length = peewee.BigIntegerField()  # uncompressed bytes, the bound of decompression
    size = peewee.BigIntegerField()  # compressed bytes, summed against max_bytes
    # Freshness on reads; eviction deletes oldest first along this index.
    fetched_at = peewee.DateTimeField(index=True)


class MarkdownResult(BaseModel):
    """A Markdown answer kept for reuse (see :mod:`store.results`): the response body and its
    headers, under the hash of the target's normalized URL and the parameters that shape it."""

    key = peewee.CharField(max_length=64, primary_key=True)

    page_version = peewee.TextField()  # the page (or render) the answer was converted from
    answer = peewee.BlobField()  # zlib-compressed JSON: {"body": ..., "headers": {...}}
    answer_length = peewee.BigIntegerField()  # uncompressed bytes, the bound of decompression
    size = peewee.BigIntegerField()  # compressed bytes, summed against result_max_bytes
    # When the page was fetched (or rendered): the answer is as old as its page. Freshness on
    # reads; eviction deletes oldest first along this index.
    made_at = peewee.DateTimeField(index=True)
    # The page (store.cache.page_key) the answer was converted from: a newer version of the
    # page supersedes every answer of an older one, whatever its format or options.
    page = peewee.CharField(max_length=64, null=True, index=True)


class DomainStrategy(BaseModel):
    """What worked last for a target domain: the proxy tier. Bounded in count and trusted only for
    a while (see :mod:`store.strategy`)."""

    id = peewee.AutoField()

    domain = peewee.CharField(max_length=255, unique=True)
    tier = peewee.CharField(max_length=16)
    rendered = peewee.BooleanField(default=False)
    """Read by nothing: kept because the schema only grows (processes of an earlier version may
    still write it during a rolling upgrade)."""
    updated_at = peewee.DateTimeField(default=utc_now, index=True)


class Screenshot(BaseModel):
    """A captured image: where its file is, what was asked, and when its link expires. The
    token (128 random bits) is the link; ``request_hash`` finds an identical capture to reuse."""

    id = peewee.AutoField()

    token = peewee.CharField(max_length=64, unique=True)
    org = peewee.ForeignKeyField(
        Organization, backref="screenshots", index=True, on_delete="CASCADE"
    )
    request_hash = peewee.CharField(max_length=64, index=True)
    extension = peewee.CharField(max_length=8)
    content_type = peewee.CharField(max_length=32)
    width = peewee.IntegerField()
    height = peewee.IntegerField()
    size = peewee.IntegerField()
    host = peewee.CharField(max_length=255)
    response_code = peewee.IntegerField(null=True)
    created_at = peewee.DateTimeField(default=utc_now)
    expires_at = peewee.DateTimeField(index=True)


class Frame(BaseModel):
    """A hosted fallback frame: the card of a page that has no native embed, for one
    organization. ``embed_id`` (a UUIDv5 of organization, URL and render parameters) is stable, so
    the same request finds the same frame; the frame page lives at
    ``/oembed/<customer_hash>/<params_hash>``."""

    id = peewee.AutoField()

    embed_id = peewee.CharField(max_length=36, unique=True)
    org = peewee.ForeignKeyField(Organization, backref="frames", index=True, on_delete="CASCADE")
    customer_hash = peewee.CharField(max_length=16)
    params_hash = peewee.CharField(max_length=32)
    url = peewee.TextField()
    template = peewee.CharField(max_length=16)
    theme = peewee.CharField(max_length=8)
    orientation = peewee.CharField(max_length=16)
    width = peewee.IntegerField()
    height = peewee.IntegerField()
    maxwidth = peewee.IntegerField(null=True)
    maxheight = peewee.IntegerField(null=True)
    metadata = peewee.TextField()  # a JSON object: title, description, image, site_name, ...
    html = peewee.TextField()  # the iframe snippet given to clients
    created_at = peewee.DateTimeField(default=utc_now, index=True)
    updated_at = peewee.DateTimeField(default=utc_now)
    refreshed_at = peewee.DateTimeField(default=utc_now)

    class Meta:
        indexes = ((("customer_hash", "params_hash"), True),)


class Secret(BaseModel):
    """Secrets generated once per installation (shared by every host on the same database)."""

    name = peewee.CharField(max_length=64, primary_key=True)
    value = peewee.CharField(max_length=128)


class Job(BaseModel):
    """A batch or crawl job of one organization: its options, its state and its running totals.
    ``results`` numbers the pages in the order they finished (the results cursor); ``expires_at``
    is set when the job ends, and the retention sweep deletes it and its pages after that. The
    ``webhook_*`` columns count its events delivered and given up (or dropped), with the last
    failure and when it happened."""

    id = peewee.CharField(max_length=32, primary_key=True)

    org = peewee.ForeignKeyField(Organization, backref="jobs", index=True, on_delete="CASCADE")
    plan = peewee.CharField(max_length=50)
    kind = peewee.CharField(max_length=16)
    options = peewee.TextField()  # a JSON object: Markdown options, crawl scope, limits
    status = peewee.CharField(max_length=16, index=True)
    stop_reason = peewee.CharField(max_length=32, null=True)
    webhook_url = peewee.TextField(null=True)
    webhook_secret = peewee.CharField(max_length=128, null=True)
    webhook_delivered = peewee.IntegerField(default=0)
    webhook_failed = peewee.IntegerField(default=0)
    webhook_error = peewee.CharField(max_length=200, null=True)
    webhook_error_at = peewee.DateTimeField(null=True)
    pages_total = peewee.IntegerField(default=0)
    pages_done = peewee.IntegerField(default=0)
    pages_failed = peewee.IntegerField(default=0)
    results = peewee.IntegerField(default=0)
    credits = peewee.BigIntegerField(default=0)
    created_at = peewee.DateTimeField(default=utc_now)
    updated_at = peewee.DateTimeField(default=utc_now)
    finished_at = peewee.DateTimeField(null=True)
    expires_at = peewee.DateTimeField(null=True, index=True)


class JobPage(BaseModel):
    """One URL of a job: its place in the queue, the lease of the process working on it, and its
    result. ``url_key`` (the sha256 of the normalised URL) is unique per job, so a URL found twice
    is queued once; ``seq`` is the page's place in the finishing order."""

    id = peewee.BigAutoField()

    job = peewee.ForeignKeyField(Job, backref="pages", index=False, on_delete="CASCADE")
    url_key = peewee.CharField(max_length=64)
    url = peewee.TextField()
    host = peewee.CharField(max_length=255)
    depth = peewee.IntegerField(default=0)
    status = peewee.CharField(max_length=16)
    attempts = peewee.IntegerField(default=0)
    lease_owner = peewee.CharField(max_length=64, null=True)
    lease_expires = peewee.DateTimeField(null=True)
    seq = peewee.IntegerField(null=True)
    credits = peewee.IntegerField(default=0)
    result = peewee.TextField(null=True)  # a JSON object: the page's answer or its error
    result_bytes = peewee.BigIntegerField(null=True)  # its UTF-8 length (a results page's cut)
    finished_at = peewee.DateTimeField(null=True)

    class Meta:
        indexes = (
            (("job", "url_key"), True),
            (("job", "status", "depth", "id"), False),
            (("job", "seq"), False),
            (("lease_owner",), False),
        )


class WebhookEvent(BaseModel):
    """An event waiting to be delivered to a job's webhook: its body as sent, when it is due, how
    often it was tried, and the lease of the process delivering it. Deleted once delivered or
    given up; ``size`` is the body's length, for the organization's bound in bytes."""

    id = peewee.BigAutoField()

    org = peewee.ForeignKeyField(Organization, index=False, on_delete="CASCADE")
    job_id = peewee.CharField(max_length=32)
    event_id = peewee.CharField(max_length=80)
    kind = peewee.CharField(max_length=16)
    url = peewee.TextField()
    secret = peewee.CharField(max_length=128)
    body = peewee.TextField()
    size = peewee.IntegerField()
    attempts = peewee.IntegerField(default=0)
    created_at = peewee.DateTimeField(default=utc_now)
    due_at = peewee.DateTimeField(default=utc_now)
    lease_owner = peewee.CharField(max_length=64, null=True)
    lease_expires = peewee.DateTimeField(null=True)

    class Meta:
        indexes = (
            (("org", "id"), False),
            (("due_at",), False),
            (("job_id", "id"), False),
        )


class AsyncCapture(BaseModel):
    """A screenshot asked for with ``async=true``: whose, its state (``pending``, ``done``,
    ``failed``) and, once it ended, what it answered (JSON: the result or the error). Rows that
    ended are deleted a day after (their links have expired by then)."""

    id = peewee.CharField(max_length=32, primary_key=True)
    org = peewee.ForeignKeyField(Organization, index=False, on_delete="CASCADE")
    status = peewee.CharField(max_length=16)
    answer = peewee.TextField(null=True)
    created_at = peewee.DateTimeField(default=utc_now)
    ended_at = peewee.DateTimeField(null=True)

    class Meta:
        indexes = ((("org", "status", "created_at"), False),)
