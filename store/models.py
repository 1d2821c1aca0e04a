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


class DomainStrategy(BaseModel):
    """What worked last for a target domain: the proxy tier (and, later, whether the page needed
    a browser render). Bounded in count and trusted only for a while (see :mod:`store.strategy`)."""

    id = peewee.AutoField()

    domain = peewee.CharField(max_length=255, unique=True)
    tier = peewee.CharField(max_length=16)
    rendered = peewee.BooleanField(default=False)
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
