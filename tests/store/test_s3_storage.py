"""Screenshots in an S3-compatible object store, against moto's S3 server on 127.0.0.1: the
storage itself, presigned links bounded by the 24-hour rule, the janitor, clean failures, and the
screenshot endpoint end to end with real Chromium."""

from __future__ import annotations

import io
import json
import logging
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
import tornado.web
from PIL import Image
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from app.config import Settings, load_settings
from app.services import Services, open_image_storage
from app.web import make_api_app
from handlers.playground import content_security_policy
from settings.fields import SettingsError
from store.db import StoreSettings
from store.images import ImageStorageError
from store.objects import ObjectStorage
from store.screenshots import ScreenshotStore
from store.store import Store, StoreUnavailable
from tests.conftest import make_settings
from tests.objectstore import SECRET_ACCESS_KEY, LocalS3, local_s3
from tests.origin import Origin, closed_port, serve
from tests.store.test_screenshot_store import fields

PAGE = "<html><body style='margin:0;background:#fff'><h1>Stored in a bucket</h1></body></html>"


@pytest.fixture(scope="module")
def s3() -> Iterator[LocalS3]:
    with local_s3() as server:
        yield server


@pytest.fixture
def bucket(s3: LocalS3) -> str:
    return s3.bucket()


@pytest.fixture
def objects(s3: LocalS3, bucket: str) -> ObjectStorage:
    return ObjectStorage(s3.settings(bucket))


@pytest.fixture
def shots(database_url: str, tmp_path: Path, objects: ObjectStorage) -> Iterator[ScreenshotStore]:
    store = Store(StoreSettings(database_url=database_url, data_dir=str(tmp_path / "data")))
    store.open()
    store.create_key("acme", "free")
    yield ScreenshotStore(store, objects)
    store.close_sync()


def presigned_lifetime(url: str) -> tuple[datetime, int]:
    """When a presigned URL was signed and for how many seconds it is valid."""
    query = parse_qs(urlsplit(url).query)
    signed = datetime.strptime(query["X-Amz-Date"][0], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    return signed, int(query["X-Amz-Expires"][0])


def download(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=10) as response:  # loopback only
        return response.status, response.headers["Content-Type"], response.read()


# -- the storage ---------------------------------------------------------------------------------


def test_write_read_delete(s3: LocalS3, bucket: str, objects: ObjectStorage) -> None:
    objects.write("0123abcd.png", b"\x89PNG one")
    objects.write("4567abcd.webp", b"RIFF two")
    assert s3.keys(bucket) == ["screenshots/0123abcd.png", "screenshots/4567abcd.webp"]
    head = s3.client().head_object(Bucket=bucket, Key="screenshots/4567abcd.webp")
    assert head["ContentType"] == "image/webp"
    assert objects.read("0123abcd.png") == b"\x89PNG one"
    assert objects.read("89abcdef.png") is None  # missing is not a failure
    objects.delete(["0123abcd.png", "89abcdef.png"])  # nor is deleting what is gone
    assert s3.keys(bucket) == ["screenshots/4567abcd.webp"]
    for name in ("../x.png", ".hidden", "a/b.png"):
        with pytest.raises(ValueError):
            objects.read(name)
    objects.check()


def test_presigned_link_works_and_is_capped(s3: LocalS3, bucket: str) -> None:
    objects = ObjectStorage(s3.settings(bucket, s3_link_seconds=600))
    objects.write("0123abcd.jpeg", b"\xff\xd8 jpeg")
    url = objects.link("0123abcd.jpeg", 86_000)
    assert url is not None and url.startswith(f"{s3.endpoint_url}/{bucket}/screenshots/")
    signed, lifetime = presigned_lifetime(url)
    assert lifetime == 600  # s3_link_seconds caps it
    assert abs((datetime.now(UTC) - signed).total_seconds()) < 5
    assert download(url) == (200, "image/jpeg", b"\xff\xd8 jpeg")
    assert presigned_lifetime(objects.link("0123abcd.jpeg", 42) or "")[1] == 42
    serving = ObjectStorage(s3.settings(bucket, s3_redirect=False))
    assert serving.link("0123abcd.jpeg", 600) is None  # Pagecast serves the bytes itself


def test_size_and_a_link_presigned_for_head(s3: LocalS3, bucket: str) -> None:
    objects = ObjectStorage(s3.settings(bucket))
    objects.write("0123abcd.png", b"\x89PNG eleven")
    assert objects.size("0123abcd.png") == len(b"\x89PNG eleven")
    assert objects.size("89abcdef.png") is None  # missing is not a failure
    url = objects.link("0123abcd.png", 600, "HEAD")
    assert url is not None and url != objects.link("0123abcd.png", 600)
    request = urllib.request.Request(url, method="HEAD")
    with urllib.request.urlopen(request, timeout=10) as response:  # loopback only
        assert response.status == 200 and response.read() == b""
        assert response.headers["Content-Type"] == "image/png"
        assert response.headers["Content-Length"] == str(len(b"\x89PNG eleven"))


@pytest.mark.gen_test(timeout=30)
async def test_store_round_trip_and_link_bounded_by_expiry(
    s3: LocalS3, bucket: str, shots: ScreenshotStore
) -> None:
    record = await shots.save(b"\x89PNG fake", **fields())
    assert s3.keys(bucket) == [f"screenshots/{record.filename}"]
    assert await shots.find(record.token) == record
    assert await shots.read(record) == b"\x89PNG fake"
    # A link made 23.5 hours ago has 30 minutes left: the presigned URL may not outlive them.
    old = await shots.save(
        b"\x89PNG old", **fields(), now=datetime.now(UTC) - timedelta(hours=23, minutes=30)
    )
    left = int((old.expires_at - datetime.now(UTC)).total_seconds())
    url = await shots.link(old, left)
    assert url is not None
    signed, lifetime = presigned_lifetime(url)
    assert lifetime <= 1800 and signed + timedelta(seconds=lifetime) <= old.expires_at
    assert download(url)[2] == b"\x89PNG old"
    # A fresh one gets the hour of s3_link_seconds, not its whole day.
    assert presigned_lifetime(await shots.link(record, 86_000) or "")[1] == 3600


@pytest.mark.gen_test(timeout=30)
async def test_janitor_deletes_objects_then_rows(
    s3: LocalS3, bucket: str, shots: ScreenshotStore
) -> None:
    old = [
        await shots.save(b"old", **fields(), now=datetime.now(UTC) - timedelta(hours=25))
        for _ in range(3)
    ]
    live = await shots.save(b"live", **fields(request_hash="c" * 64))
    assert len(s3.keys(bucket)) == 4
    assert await shots.sweep() == 3
    assert s3.keys(bucket) == [f"screenshots/{live.filename}"]
    for record in old:
        assert await shots.find(record.token) is None
    assert await shots.find(live.token) == live
    assert await shots.sweep() == 0


@pytest.mark.gen_test(timeout=30)
async def test_janitor_keeps_rows_while_the_bucket_fails(
    s3: LocalS3, bucket: str, shots: ScreenshotStore
) -> None:
    old = await shots.save(b"old", **fields(), now=datetime.now(UTC) - timedelta(hours=25))
    working = shots.files
    shots.files = ObjectStorage(s3.settings("pagecast-no-such-bucket"))
    with pytest.raises(ImageStorageError):
        await shots.sweep()
    assert await shots.find(old.token) == old  # its object may still exist: try again later
    shots.files = working
    assert await shots.sweep() == 1
    assert s3.keys(bucket) == []


@pytest.mark.gen_test(timeout=30)
async def test_missing_bucket_and_unreachable_endpoint_fail_cleanly(
    s3: LocalS3, shots: ScreenshotStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    missing = ObjectStorage(s3.settings("pagecast-no-such-bucket"))
    unreachable = ObjectStorage(
        s3.settings("bucket", s3_endpoint_url=f"http://127.0.0.1:{closed_port()}")
    )
    for storage in (missing, unreachable):
        started = time.monotonic()
        for method, args in (
            (storage.write, ("0123abcd.png", b"x")),
            (storage.read, ("0123abcd.png",)),
            (storage.delete, (["0123abcd.png"],)),
            (storage.check, ()),
        ):
            with pytest.raises(ImageStorageError) as failure:
                method(*args)
            assert str(failure.value) == "the screenshot storage is unavailable"
            assert isinstance(failure.value, StoreUnavailable)
        assert time.monotonic() - started < 10  # bounded attempts, no long back-off
        shots.files = storage
        with pytest.raises(ImageStorageError):
            await shots.save(b"\x89PNG", **fields())
    assert await shots.reusable(1, "a" * 64, timedelta(hours=1)) is None  # no row without image
    assert "NoSuchBucket" in caplog.text and "Could not connect" in caplog.text
    assert SECRET_ACCESS_KEY not in caplog.text


def test_settings_check_the_backend(tmp_path: Path, s3: LocalS3) -> None:
    with pytest.raises(SettingsError) as problem:
        load_settings(None, environ={"PAGECAST_SCREENSHOTS_BACKEND": "s3"})
    assert "screenshots.s3_bucket: required when backend is s3" in problem.value.problems
    with pytest.raises(SettingsError):
        load_settings(
            None,
            environ={
                "PAGECAST_SCREENSHOTS_BACKEND": "cloud",
                "PAGECAST_SCREENSHOTS_S3_BUCKET": "images",
            },
        )
    with pytest.raises(SettingsError):
        load_settings(None, environ={"PAGECAST_SCREENSHOTS_S3_ACCESS_KEY_ID": "only-the-id"})
    loaded = load_settings(
        None,
        environ={
            "PAGECAST_SCREENSHOTS_BACKEND": "s3",
            "PAGECAST_SCREENSHOTS_S3_BUCKET": "images",
            "PAGECAST_SCREENSHOTS_S3_ACCESS_KEY_ID": "id",
            "PAGECAST_SCREENSHOTS_S3_SECRET_ACCESS_KEY": SECRET_ACCESS_KEY,
        },
    )
    assert loaded.screenshots.s3_secret_access_key == SECRET_ACCESS_KEY
    assert SECRET_ACCESS_KEY not in repr(loaded)  # settings never print the secret


def test_settings_refuse_unusable_endpoints() -> None:
    for endpoint in ("minio:9000", "http://user:secret@minio:9000", "ftp://minio", "http://["):
        for name in ("S3_ENDPOINT_URL", "S3_PUBLIC_ENDPOINT_URL"):
            with pytest.raises(SettingsError) as problem:
                load_settings(None, environ={f"PAGECAST_SCREENSHOTS_{name}": endpoint})
            assert any(
                "an http(s)://host[:port] URL without credentials" in text
                for text in problem.value.problems
            ), endpoint
            assert "secret" not in str(problem.value)


def test_links_point_at_the_direct_origin(s3: LocalS3, bucket: str) -> None:
    """The origin the playground's policy admits is the one presigned links really use; with
    redirects off there is none (Pagecast serves the bytes)."""
    storage = ObjectStorage(s3.settings(bucket))
    parts = urlsplit(storage.link("0123abcd.png", 60) or "")
    assert storage.direct_origin == f"{parts.scheme}://{parts.netloc}"
    assert storage.direct_origin == s3.endpoint_url.rstrip("/")
    public = ObjectStorage(s3.settings(bucket, s3_public_endpoint_url="http://images.example:9000"))
    assert public.direct_origin == "http://images.example:9000"
    assert ObjectStorage(s3.settings(bucket, s3_redirect=False)).direct_origin is None
    policy = content_security_policy(
        "http://127.0.0.1:8080", "http://127.0.0.1:8081", public.direct_origin
    )
    image_sources = next(part for part in policy.split("; ") if part.startswith("img-src"))
    assert "http://images.example:9000" in image_sources.split()


# -- the endpoint ---------------------------------------------------------------------------------


class Page(tornado.web.RequestHandler):
    def get(self) -> None:
        self.finish(PAGE)


@pytest.fixture
def origin(io_loop: Any) -> Iterator[Origin]:
    site = serve(tornado.web.Application([(r"/.*", Page)]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def settings(tmp_path: Path, base_url: str, s3: LocalS3, bucket: str) -> Settings:
    settings = make_settings(tmp_path)
    settings.server.base_url = base_url
    settings.farm.warm_contexts = 1
    settings.screenshots = s3.settings(bucket)
    return settings


@pytest.fixture
def services(io_loop: Any, services: Services, settings: Settings) -> Services:
    """The test services with screenshots kept in the bucket, built by ``open_services``'s own
    ``open_image_storage`` (``screenshots.backend`` is ``s3``)."""
    storage = io_loop.run_sync(lambda: open_image_storage(settings))
    assert isinstance(storage, ObjectStorage)
    services.screenshots = ScreenshotStore(services.store, storage)
    return services


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


@pytest.fixture
def key(services: Services) -> str:
    return services.store.create_key("shots", "pro").key


async def shot(
    http_client: AsyncHTTPClient, base_url: str, target: str, key: str, **params: str
) -> tuple[HTTPResponse, Any]:
    query = "".join(f"&{name}={quote(value, safe='')}" for name, value in params.items())
    url = f"{base_url}/api/1.1/screenshot/{quote(target, safe='')}?app_id={key}{query}"
    response = await http_client.fetch(url, raise_error=False, request_timeout=60)
    is_json = response.headers.get("Content-Type", "").startswith("application/json")
    return response, json.loads(response.body) if is_json else response.body


@pytest.mark.gen_test(timeout=30)
async def test_playground_admits_images_from_the_store(
    http_client: Any, base_url: str, s3: LocalS3
) -> None:
    response = await http_client.fetch(f"{base_url}/", raise_error=False)
    policy = response.headers["Content-Security-Policy"]
    image_sources = next(part for part in policy.split("; ") if part.startswith("img-src"))
    assert s3.endpoint_url.rstrip("/") in image_sources.split()


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_endpoint_with_the_object_store(
    http_client, base_url, origin, key, services, s3, bucket
) -> None:
    response, body = await shot(http_client, base_url, origin.url("/"), key, format="png")
    assert response.code == 200, body
    link = body["screenshotUrl"]
    token = link.rsplit("/", 1)[1]
    assert link == f"{base_url}/screenshots/{token}"  # Pagecast's own link, as before
    assert s3.keys(bucket) == [f"screenshots/{token}"]

    # The link checks the row, then redirects to a presigned URL of the object.
    redirect = await http_client.fetch(link, follow_redirects=False, raise_error=False)
    assert redirect.code == 302
    assert redirect.headers["Cache-Control"] == "no-store"
    location = redirect.headers["Location"]
    assert location.startswith(f"{s3.endpoint_url}/{bucket}/screenshots/{token}?")
    assert presigned_lifetime(location)[1] == 3600
    followed = await http_client.fetch(link)
    assert followed.headers["Content-Type"] == "image/png"
    assert Image.open(io.BytesIO(followed.body)).size == (1366, 768)

    # response_type=image reads the bytes back from the bucket; cache_ok reuses the capture.
    response, raw = await shot(
        http_client, base_url, origin.url("/"), key, format="png", response_type="image"
    )
    assert response.code == 200 and raw == followed.body
    assert response.headers["X-Screenshot-Url"] == link
    _, again = await shot(http_client, base_url, origin.url("/"), key, format="png")
    assert again["screenshotUrl"] == link
    assert len(s3.keys(bucket)) == 1

    # Half an hour left: the presigned URL lasts no longer. 25 hours old: 410, and the janitor
    # deletes the object and then the row.
    stored = {"org_id": 1, "width": 1, "height": 1, "host": "example.com", "response_code": 200}
    late = await services.screenshots.save(
        b"\x89PNG late",
        request_hash="l" * 64,
        extension="png",
        now=datetime.now(UTC) - timedelta(hours=23, minutes=30),
        **stored,
    )
    late_link = f"{base_url}/screenshots/{late.filename}"
    redirect = await http_client.fetch(late_link, follow_redirects=False, raise_error=False)
    signed, lifetime = presigned_lifetime(redirect.headers["Location"])
    assert lifetime <= 1800 and signed + timedelta(seconds=lifetime) <= late.expires_at
    old = await services.screenshots.save(
        b"\x89PNG old",
        request_hash="o" * 64,
        extension="png",
        now=datetime.now(UTC) - timedelta(hours=25),
        **stored,
    )
    old_link = f"{base_url}/screenshots/{old.filename}"
    response = await http_client.fetch(old_link, raise_error=False)
    assert response.code == 410 and json.loads(response.body)["error"]["code"] == "gone"
    assert f"screenshots/{old.filename}" in s3.keys(bucket)
    assert await services.screenshots.sweep() == 1
    assert f"screenshots/{old.filename}" not in s3.keys(bucket)
    response = await http_client.fetch(old_link, raise_error=False)
    assert response.code == 404
    assert (await http_client.fetch(link)).code == 200  # the live link is untouched


@pytest.mark.gen_test(timeout=30)
async def test_head_of_links_with_the_object_store(http_client, base_url, services, s3) -> None:
    stored = {"org_id": 1, "width": 1, "height": 1, "host": "example.com", "response_code": 200}
    services.store.create_key("shots", "pro")
    live = await services.screenshots.save(
        b"\x89PNG live", request_hash="h" * 64, extension="png", **stored
    )
    link = f"{base_url}/screenshots/{live.filename}"
    get = await http_client.fetch(link, follow_redirects=False, raise_error=False)
    head = await http_client.fetch(link, method="HEAD", follow_redirects=False, raise_error=False)
    assert get.code == head.code == 302 and head.body == b""
    assert head.headers["Cache-Control"] == get.headers["Cache-Control"] == "no-store"
    # Each answer is presigned for its own method, so following the HEAD's redirect works.
    assert head.headers["Location"] != get.headers["Location"]
    followed = await http_client.fetch(link, method="HEAD")
    assert followed.code == 200 and followed.headers["Content-Type"] == "image/png"
    assert followed.headers["Content-Length"] == str(len(b"\x89PNG live"))
    # Served by Pagecast itself (no redirects): the size comes from the store, not a read.
    services.screenshots.files = ObjectStorage(s3.settings(s3.bucket(), s3_redirect=False))
    services.screenshots.files.write(live.filename, b"\x89PNG served here")
    get = await http_client.fetch(link)
    head = await http_client.fetch(link, method="HEAD")
    assert get.body == b"\x89PNG served here" and head.body == b""
    for name in ("Content-Type", "Content-Length", "Expires", "Last-Modified"):
        assert head.headers[name] == get.headers[name], name
    old = await services.screenshots.save(
        b"\x89PNG old",
        request_hash="o" * 64,
        extension="png",
        now=datetime.now(UTC) - timedelta(hours=25),
        **stored,
    )
    head = await http_client.fetch(
        f"{base_url}/screenshots/{old.filename}", method="HEAD", raise_error=False
    )
    assert head.code == 410 and head.body == b""


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_endpoint_when_the_object_store_fails(
    http_client, base_url, origin, key, services, s3
) -> None:
    _, body = await shot(http_client, base_url, origin.url("/"), key)
    link = body["screenshotUrl"]
    unreachable = f"http://127.0.0.1:{closed_port()}"
    services.screenshots.files = ObjectStorage(
        s3.settings("bucket", s3_endpoint_url=unreachable, s3_redirect=False)
    )
    for params in ({"cache_ok": "false"}, {"response_type": "image"}):
        response, body = await shot(http_client, base_url, origin.url("/"), key, **params)
        assert response.code == 503, body
        assert body["success"] is False and body["error"]["code"] == "unavailable"
        assert set(body["error"]) == {"code", "message", "stage", "details"}
        assert response.headers["X-BILLING-REQUESTS"] == "0"
    response = await http_client.fetch(link, raise_error=False)
    assert response.code == 503
    assert json.loads(response.body)["error"]["code"] == "unavailable"
