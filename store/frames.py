"""Hosted frames: the rows behind ``/oembed/<customer_hash>/<params_hash>`` and the frame
management API, and the installation secret their hashes are keyed with.

A frame is upserted by its ``embed_id`` (the same request always lands on the same row). Listing
is newest first with an opaque cursor. Every query runs through the store's threads with its
time limit; SQLite writes go through the store's single writer.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import peewee

from store.installation import installation_secret
from store.models import Frame, Organization, as_utc, utc_now
from store.store import Store

METADATA_FIELDS = (
    "title",
    "description",
    "image",
    "site_name",
    "favicon",
    "canonical_url",
    "author",
    "published_at",
    "image_width",
    "image_height",
)
"""The page metadata a frame keeps (a JSON object in its row: a frame stored before a field
was added reads it as "" until it is refreshed, so adding one needs no schema step)."""


@dataclass(frozen=True)
class FrameRecord:
    """A stored frame, as the API and the frame page need it."""

    embed_id: str
    org_id: int
    plan: str
    customer_hash: str
    params_hash: str
    url: str
    template: str
    theme: str
    orientation: str
    width: int
    height: int
    maxwidth: int | None
    maxheight: int | None
    metadata: dict[str, str]
    html: str
    created_at: datetime
    updated_at: datetime
    refreshed_at: datetime

    def path(self) -> str:
        """The frame page's path on the frame host."""
        return f"/oembed/{self.customer_hash}/{self.params_hash}"

    def to_json(self, frame_host: str) -> dict[str, Any]:
        """The record as the frame management API shows it."""
        return {
            "embed_id": self.embed_id,
            "url": self.url,
            "frame_url": frame_host + self.path(),
            "template": self.template,
            "theme": self.theme,
            "orientation": self.orientation,
            "width": self.width,
            "height": self.height,
            "maxwidth": self.maxwidth,
            "maxheight": self.maxheight,
            "metadata": {name: self.metadata.get(name, "") for name in METADATA_FIELDS},
            "html": self.html,
            "created_at": _iso(self.created_at),
            "updated_at": _iso(self.updated_at),
            "refreshed_at": _iso(self.refreshed_at),
        }


@dataclass(frozen=True)
class FramePage:
    """One page of a listing."""

    frames: list[FrameRecord]
    next_cursor: str | None
    total: int


class BadCursorError(ValueError):
    """A listing cursor that Pagecast did not issue."""


def _iso(moment: datetime) -> str:
    return as_utc(moment).isoformat().replace("+00:00", "Z")


def _record(row: Frame, plan: str) -> FrameRecord:
    try:
        metadata = json.loads(row.metadata)
    except ValueError:
        metadata = {}
    return FrameRecord(
        embed_id=row.embed_id,
        org_id=row.org_id,  # type: ignore[attr-defined]
        plan=plan,
        customer_hash=row.customer_hash,
        params_hash=row.params_hash,
        url=row.url,
        template=row.template,
        theme=row.theme,
        orientation=row.orientation,
        width=row.width,
        height=row.height,
        maxwidth=row.maxwidth,
        maxheight=row.maxheight,
        metadata={k: str(v) for k, v in metadata.items()} if isinstance(metadata, dict) else {},
        html=row.html,
        created_at=as_utc(row.created_at),
        updated_at=as_utc(row.updated_at),
        refreshed_at=as_utc(row.refreshed_at),
    )


def _with_plan() -> Any:
    return Frame.select(Frame, Organization.plan).join(Organization)


# -- queries (each runs in a store thread) ------------------------------------------------------


def upsert(db: peewee.Database, fields: dict[str, Any], *, refreshed: bool) -> FrameRecord:
    """Create the frame or update it in place (keeping ``created_at``)."""
    now = utc_now()
    values = {**fields, "metadata": json.dumps(fields["metadata"], sort_keys=True)}
    with db.atomic():
        row = Frame.select().where(Frame.embed_id == fields["embed_id"]).first(db)
        if row is None:
            Frame.insert(
                **values, created_at=now, updated_at=now, refreshed_at=now
            ).on_conflict_ignore().execute(db)
        elif refreshed or any(
            getattr(row, name) != value for name, value in values.items() if name != "org"
        ):
            changes = {**values, "updated_at": now}
            if refreshed:
                changes["refreshed_at"] = now
            Frame.update(changes).where(Frame.embed_id == fields["embed_id"]).execute(db)
        stored = _with_plan().where(Frame.embed_id == fields["embed_id"]).first(db)
    return _record(stored, stored.org.plan)


def by_embed_id(db: peewee.Database, org_id: int, embed_id: str) -> FrameRecord | None:
    """The organization's frame ``embed_id`` (another organization's is None)."""
    row = _with_plan().where((Frame.embed_id == embed_id) & (Frame.org == org_id)).first(db)
    return _record(row, row.org.plan) if row else None


def by_hashes(db: peewee.Database, customer_hash: str, params_hash: str) -> FrameRecord | None:
    """The frame behind a frame-page path."""
    row = (
        _with_plan()
        .where((Frame.customer_hash == customer_hash) & (Frame.params_hash == params_hash))
        .first(db)
    )
    return _record(row, row.org.plan) if row else None


def delete(db: peewee.Database, org_id: int, embed_id: str) -> FrameRecord | None:
    """Delete the organization's frame; the deleted record, or None when there was none."""
    with db.atomic():
        found = by_embed_id(db, org_id, embed_id)
        if found is not None:
            Frame.delete().where(Frame.embed_id == embed_id).execute(db)
    return found


def listing(db: peewee.Database, org_id: int, limit: int, cursor: str | None) -> FramePage:
    """The organization's frames, newest first, ``limit`` at a time after ``cursor``."""
    query = _with_plan().where(Frame.org == org_id)
    total = Frame.select().where(Frame.org == org_id).count(db)
    if cursor:
        created, row_id = decode_cursor(cursor)
        query = query.where(
            (Frame.created_at < created) | ((Frame.created_at == created) & (Frame.id < row_id))
        )
    rows = list(
        query.order_by(Frame.created_at.desc(), Frame.id.desc()).limit(limit + 1).execute(db)
    )
    more = len(rows) > limit
    rows = rows[:limit]
    next_cursor = encode_cursor(rows[-1].created_at, rows[-1].id) if more and rows else None
    return FramePage([_record(row, row.org.plan) for row in rows], next_cursor, total)


def encode_cursor(created_at: datetime, row_id: int) -> str:
    """An opaque cursor after the frame created at ``created_at`` with ``row_id``."""
    raw = f"{as_utc(created_at).replace(tzinfo=None).isoformat()}|{row_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    """The position a cursor stands for; :class:`BadCursorError` for anything else."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        created, row_id = raw.split("|")
        return datetime.fromisoformat(created), int(row_id)
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise BadCursorError("the cursor is not one Pagecast issued") from exc


class FrameStore:
    """The frame service of the store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._secret: str | None = None

    async def secret(self) -> str:
        """The installation's frame secret (read once per process)."""
        if self._secret is None:
            self._secret = await self.store.run(installation_secret, "frame secret", write=True)
        return self._secret

    async def upsert(self, fields: dict[str, Any], *, refreshed: bool = False) -> FrameRecord:
        return await self.store.run(
            lambda db: upsert(db, fields, refreshed=refreshed), "frame upsert", write=True
        )

    async def get(self, org_id: int, embed_id: str) -> FrameRecord | None:
        return await self.store.run(lambda db: by_embed_id(db, org_id, embed_id), "frame read")

    async def page(self, customer_hash: str, params_hash: str) -> FrameRecord | None:
        return await self.store.run(
            lambda db: by_hashes(db, customer_hash, params_hash), "frame page read"
        )

    async def delete(self, org_id: int, embed_id: str) -> FrameRecord | None:
        return await self.store.run(
            lambda db: delete(db, org_id, embed_id), "frame delete", write=True
        )

    async def listing(self, org_id: int, limit: int, cursor: str | None) -> FramePage:
        return await self.store.run(lambda db: listing(db, org_id, limit, cursor), "frame list")
