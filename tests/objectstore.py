"""A local S3 server for tests: moto's server mode on 127.0.0.1 at a free port, in a thread.

Use from a fixture::

    @pytest.fixture(scope="module")
    def s3() -> Iterator[LocalS3]:
        with local_s3() as server:
            yield server

``server.bucket()`` creates a fresh bucket and returns its name; ``server.settings(bucket)`` are
screenshot settings that store images there.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3
from moto.server import ThreadedMotoServer

from store.screenshots import ScreenshotSettings

REGION = "us-east-1"
ACCESS_KEY_ID = "pagecast-test"
SECRET_ACCESS_KEY = "pagecast-test-secret-never-logged"


@dataclass
class LocalS3:
    """A running moto S3 server."""

    endpoint_url: str

    def client(self) -> Any:
        """A plain boto3 client, for looking under the storage."""
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            region_name=REGION,
            aws_access_key_id=ACCESS_KEY_ID,
            aws_secret_access_key=SECRET_ACCESS_KEY,
        )

    def bucket(self) -> str:
        """A new empty bucket."""
        name = f"pagecast-{secrets.token_hex(6)}"
        self.client().create_bucket(Bucket=name)
        return name

    def settings(self, bucket: str, **overrides: Any) -> ScreenshotSettings:
        """Screenshot settings that keep images in ``bucket`` on this server."""
        values: dict[str, Any] = {
            "backend": "s3",
            "s3_endpoint_url": self.endpoint_url,
            "s3_bucket": bucket,
            "s3_region": REGION,
            "s3_access_key_id": ACCESS_KEY_ID,
            "s3_secret_access_key": SECRET_ACCESS_KEY,
            "s3_addressing_style": "path",
        }
        values.update(overrides)
        return ScreenshotSettings(**values)

    def keys(self, bucket: str) -> list[str]:
        """Every object key in ``bucket``."""
        listed = self.client().list_objects_v2(Bucket=bucket)
        return sorted(item["Key"] for item in listed.get("Contents", []))


@contextmanager
def local_s3() -> Iterator[LocalS3]:
    """Run moto's S3 server on 127.0.0.1 at a free port for the length of the block."""
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield LocalS3(f"http://{host}:{port}")
    finally:
        server.stop()
