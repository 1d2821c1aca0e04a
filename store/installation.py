"""Secrets made once per installation and kept in the database, so that every host on the same
database shares them (the frames' customer hash, the signing secrets of signed links)."""

from __future__ import annotations

import secrets

import peewee

from store.models import Secret

FRAME_SECRET = "frame_secret"  # noqa: S105 (the name of the secret, not a secret)
LINK_SECRET = "link_signing"  # noqa: S105 (the name of the secret, not a secret)


def installation_secret(db: peewee.Database, name: str = FRAME_SECRET) -> str:
    """The installation's secret ``name``, made on first use (the first host to ask wins)."""
    row = Secret.select().where(Secret.name == name).first(db)
    if row is not None:
        return str(row.value)
    Secret.insert(name=name, value=secrets.token_hex(32)).on_conflict_ignore().execute(db)
    return str(Secret.select().where(Secret.name == name).get(db).value)
