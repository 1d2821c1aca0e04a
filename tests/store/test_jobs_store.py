"""Job rows on SQLite and Postgres: queueing with dedup, claiming under a lease (never the same
page twice, even from threads racing on one database), expired leases claimed again, results
recorded only by the lease holder and numbered in finishing order, crawl links queued within the
page limit, cancellation, and the retention sweep."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections.abc import Awaitable, Iterator
from datetime import timedelta
from functools import partial
from pathlib import Path

import peewee
import pytest

from services.accounts.plans import PlanSettings
from services.jobs import upkeep
from services.jobs.admission import Admission, AdmissionError, Month
from store import job_stops, job_views, jobs, webhook_events
from store.db import StoreSettings
from store.job_types import Claim, NewPage, OrgLoad, Outcome, Recorded
from store.migrations import latest_version, migrate
from store.models import Job, JobPage, Organization, SchemaVersion, WebhookEvent, utc_now
from store.store import Store
from store.webhook_events import NewEvent
from tests.conftest import raw_database


@pytest.fixture
def store(database_url: str, tmp_path: Path) -> Iterator[Store]:
    store = Store(StoreSettings(database_url=database_url, data_dir=str(tmp_path / "data")))
    store.open()
    store.create_key("acme", "free")
    yield store
    store.close_sync()


def page(path: str, depth: int = 0) -> NewPage:
    url = f"http://127.0.0.1:1/{path}"
    return NewPage(hashlib.sha256(url.encode()).hexdigest(), url, "127.0.0.1:1", depth)


def new_job(db: peewee.Database, paths: list[str], kind: str = "batch") -> str:
    org = Organization.select().where(Organization.name == "acme").get(db)
    job_id = jobs.new_job_id()
    jobs.create_job(
        db,
        job_id=job_id,
        org_id=org.id,
        plan="free",
        kind=kind,
        options={"max_pages": 5},
        pages=[page(path) for path in paths],
    )
    return job_id


def ok(n: int) -> Outcome:
    return Outcome(True, {"markdown": f"page {n}"}, credits=1)


def test_claim_record_and_finish(store: Store, database_url: str, tmp_path: Path) -> None:
    with raw_database(database_url, tmp_path) as db:
        job_id = new_job(db, ["a", "b", "a", "c"])  # "a" twice: queued once
        org = Organization.select().where(Organization.name == "acme").get(db).id
        view = job_views.job_view(db, job_id=job_id, org_id=org)
        assert view is not None and view.pages_total == 3 and view.status == "queued"
        assert job_views.job_view(db, job_id=job_id, org_id=org + 1) is None
        assert [job.id for job in jobs.active_jobs(db)] == [job_id]

        claim = partial(jobs.claim_page, db, job_id=job_id, lease_seconds=60)
        record = partial(jobs.record_page, db, job_id=job_id)
        first, second = claim(owner="one"), claim(owner="two")
        assert first is not None and second is not None and first.id != second.id
        # Only the lease holder records; a page is recorded once.
        assert record(page_id=first.id, owner="two", outcome=ok(1)) is None
        recorded = record(page_id=first.id, owner="one", outcome=ok(1))
        assert recorded == Recorded(1, 0, None)
        assert record(page_id=first.id, owner="one", outcome=ok(1)) is None
        # A released page goes back to the queue; a failed page costs nothing.
        assert jobs.release_page(db, page_id=second.id, owner="two")
        third = claim(owner="two")
        assert third is not None and third.id == second.id and third.attempts == 1
        failed = Outcome(False, {"error": {"code": -3008, "message": "404"}}, credits=1)
        assert record(page_id=third.id, owner="two", outcome=failed)
        last = claim(owner="one")
        assert last is not None and claim(owner="one") is None
        assert record(page_id=last.id, owner="one", outcome=ok(3)) == (Recorded(3, 0, "completed"))
        view = job_views.job_view(db, job_id=job_id, org_id=org)
        assert view is not None
        assert (view.status, view.pages_done, view.pages_failed, view.credits) == (
            "completed",
            2,
            1,
            2,
        )
        assert view.expires_at is not None and jobs.active_jobs(db) == []
        sizes = job_views.result_sizes(db, job_id=job_id, after=0, limit=2)
        assert [seq for seq, _ in sizes] == [1, 2] and all(size > 10 for _, size in sizes)
        stored = job_views.job_results(db, job_id=job_id, seqs=[1])[0].result
        # Bytes, not characters: what the answer's cap counts.
        assert sizes[0][1] == len(json.dumps(stored, separators=(",", ":")).encode())
        results = job_views.job_results(db, job_id=job_id, seqs=[1, 2])
        assert [(r.seq, r.status) for r in results] == [(1, "done"), (2, "failed")]
        assert [seq for seq, _ in job_views.result_sizes(db, job_id=job_id, after=2, limit=2)] == [
            3
        ]
        rest = job_views.job_results(db, job_id=job_id, seqs=[3])
        assert [(r.seq, r.result["markdown"]) for r in rest] == [(3, "page 3")]
        # Retention: nothing before its time, everything after.
        assert job_views.sweep(db) == 0
        assert job_views.sweep(db, now=utc_now() + timedelta(days=2)) == 1
        assert job_views.job_view(db, job_id=job_id, org_id=org) is None
        assert job_views.page_counts(db, job_id=job_id) == {}


def test_expired_leases_are_claimed_again_and_crawl_links_are_capped(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    with raw_database(database_url, tmp_path) as db:
        job_id = new_job(db, ["start"], kind="crawl")
        record = partial(jobs.record_page, db, job_id=job_id)
        dead = jobs.claim_page(db, job_id=job_id, owner="dead", lease_seconds=-1)
        assert dead is not None
        # The dead owner's lease has expired: another process takes the page over.
        taken = jobs.claim_page(db, job_id=job_id, owner="alive", lease_seconds=60)
        assert taken is not None and taken.id == dead.id and taken.attempts == 2
        assert record(page_id=dead.id, owner="dead", outcome=ok(0)) is None
        links = [page(f"p{n}", 1) for n in (1, 2, 2, 3, 4, 5, 6)] + [page("start", 1)]
        recorded = jobs.record_page(
            db,
            job_id=job_id,
            page_id=taken.id,
            owner="alive",
            outcome=ok(0),
            links=links,
            max_pages=5,
        )
        assert recorded is not None and recorded.queued == 4  # dedup, start known, cap of 5
        assert job_views.page_counts(db, job_id=job_id) == {"done": 1, "queued": 4}
        # Renewing keeps a lease; cancelling skips what is queued.
        claim = jobs.claim_page(db, job_id=job_id, owner="alive", lease_seconds=-1)
        assert claim is not None and claim.depth == 1
        assert jobs.renew_leases(db, owner="alive", page_ids=[claim.id], lease_seconds=60) == 1
        assert (
            jobs.claim_page(
                db, job_id=job_id, owner="x", lease_seconds=60, skip_hosts=["127.0.0.1:1"]
            )
            is None
        )
        # A page whose worker died (its lease expired) is skipped by the stop with the queued
        # ones: nobody would claim it again. The live lease's page stays running.
        died = jobs.claim_page(db, job_id=job_id, owner="dead", lease_seconds=-1)
        assert died is not None and died.id != claim.id
        assert job_views.page_counts(db, job_id=job_id) == {"done": 1, "running": 2, "queued": 2}
        assert job_stops.stop_job(db, job_id=job_id, status="cancelled")
        assert not job_stops.stop_job(db, job_id=job_id, status="cancelled")
        assert job_views.page_counts(db, job_id=job_id) == {"done": 1, "running": 1, "skipped": 3}
        assert record(page_id=died.id, owner="dead", outcome=ok(9)) is None
        # The page in flight is still recorded, and queues nothing more.
        recorded = jobs.record_page(
            db,
            job_id=job_id,
            page_id=claim.id,
            owner="alive",
            outcome=ok(1),
            links=[page("p9", 2)],
            max_pages=9,
        )
        assert recorded is not None and recorded.queued == 0 and recorded.ended is None


def test_racing_claimers_never_share_a_page(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    with raw_database(database_url, tmp_path) as db:
        job_id = new_job(db, [f"p{n}" for n in range(60)])
    claimed: list[int] = []
    problems: list[BaseException] = []

    def worker(name: str) -> None:
        try:
            with raw_database(database_url, tmp_path) as db:
                record = partial(jobs.record_page, db, job_id=job_id)
                while True:
                    claim = jobs.claim_page(db, job_id=job_id, owner=name, lease_seconds=60)
                    if claim is None:
                        return
                    claimed.append(claim.id)
                    record(page_id=claim.id, owner=name, outcome=ok(claim.id))
        except BaseException as exc:
            problems.append(exc)

    threads = [threading.Thread(target=worker, args=(f"w{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not problems
    assert len(claimed) == 60 and len(set(claimed)) == 60
    with raw_database(database_url, tmp_path) as db:
        assert job_views.page_counts(db, job_id=job_id) == {"done": 60}
        sizes = job_views.result_sizes(db, job_id=job_id, after=0, limit=100)
        assert [seq for seq, _ in sizes] == list(range(1, 61))


def test_admission_sees_what_the_active_jobs_hold_and_cuts_the_new_one(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    with raw_database(database_url, tmp_path) as db:
        org = Organization.select().where(Organization.name == "acme").get(db).id
        first = new_job(db, ["a", "b", "c"])  # max_pages 5 and 3 pages: a batch holds 5
        jobs.record_page(
            db,
            job_id=first,
            page_id=jobs.claim_page(db, job_id=first, owner="one", lease_seconds=60).id,
            owner="one",
            outcome=ok(1),
        )
        seen: list[OrgLoad] = []

        def admit(load: OrgLoad) -> int:
            seen.append(load)
            return 2

        queued = jobs.create_job(
            db,
            job_id=(second := jobs.new_job_id()),
            org_id=org,
            plan="free",
            kind="crawl",
            options={"max_pages": 40, "page_price": 6},
            pages=[page("x"), page("y"), page("z")],
            admit=admit,
        )
        assert seen == [OrgLoad(jobs=1, pages=4, credits=4)]
        assert queued == 2
        assert job_views.org_load(db, org) == OrgLoad(jobs=2, pages=6, credits=16)
        job_stops.stop_job(db, job_id=second, status="cancelled")
        assert job_views.org_load(db, org) == OrgLoad(jobs=1, pages=4, credits=4)

        def refuse(load: OrgLoad) -> int:
            raise LookupError("no room")

        with pytest.raises(LookupError):
            jobs.create_job(
                db,
                job_id=jobs.new_job_id(),
                org_id=org,
                plan="free",
                kind="batch",
                options={"max_pages": 1},
                pages=[page("w")],
                admit=refuse,
            )
        assert job_views.org_load(db, org).jobs == 1  # nothing of the refused job was stored


def test_a_new_job_makes_room_by_deleting_the_oldest_ended_ones(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    with raw_database(database_url, tmp_path) as db:
        org = Organization.select().where(Organization.name == "acme").get(db).id
        ended = [new_job(db, [f"e{n}"]) for n in range(3)]
        for job_id in ended:
            job_stops.stop_job(db, job_id=job_id, status="cancelled")
        active = new_job(db, ["a"])
        jobs.create_job(
            db,
            job_id=(latest := jobs.new_job_id()),
            org_id=org,
            plan="free",
            kind="batch",
            options={"max_pages": 1},
            pages=[page("z")],
            keep_jobs=3,
        )
        left = {job.id for job in Job.select(Job.id).where(Job.org == org).execute(db)}
        assert left == {ended[2], active, latest}  # the two oldest ended ones made room
        assert job_views.page_counts(db, job_id=ended[0]) == {}


def test_what_a_record_or_a_stop_writes_beside_it_shares_its_transaction(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    """The job's webhook events are written by ``then`` in the transaction that records the page
    or the stop: kept with it, and gone with it when that transaction fails."""
    event = partial(webhook_events.insert_event, max_count=10, max_bytes=10_000, bounded=True)

    def stored(db: peewee.Database) -> list[str]:
        return [row.event_id for row in WebhookEvent.select().order_by(WebhookEvent.id).execute(db)]

    with raw_database(database_url, tmp_path) as db:
        job_id = new_job(db, ["a", "b", "c"])
        first = jobs.claim_page(db, job_id=job_id, owner="one", lease_seconds=60)
        assert first is not None

        def broken(db: peewee.Database, recorded: Recorded) -> None:
            event(db, NewEvent("acme", job_id, f"{job_id}-{recorded.seq}", "page", "u", "s", "{}"))
            raise RuntimeError("the process dies between the two writes")

        with pytest.raises(RuntimeError):
            jobs.record_page(
                db, job_id=job_id, page_id=first.id, owner="one", outcome=ok(1), then=broken
            )
        # Neither the page nor its event: the page is still the lease holder's to record.
        assert stored(db) == [] and job_views.page_counts(db, job_id=job_id) == {
            "running": 1,
            "queued": 2,
        }

        def page_event(db: peewee.Database, recorded: Recorded) -> None:
            event(db, NewEvent("acme", job_id, f"{job_id}-{recorded.seq}", "page", "u", "s", "{}"))

        recorded = jobs.record_page(
            db, job_id=job_id, page_id=first.id, owner="one", outcome=ok(1), then=page_event
        )
        assert recorded == Recorded(1, 0, None) and stored(db) == [f"{job_id}-1"]
        # A record that does not happen (another owner) writes nothing beside it either.
        assert (
            jobs.record_page(
                db, job_id=job_id, page_id=first.id, owner="two", outcome=ok(1), then=page_event
            )
            is None
        )
        assert stored(db) == [f"{job_id}-1"]

        def end(db: peewee.Database) -> None:
            event(db, NewEvent("acme", job_id, f"{job_id}-end", "job", "u", "s", "{}"))

        assert job_stops.stop_job(db, job_id=job_id, status="cancelled", then=end)
        assert not job_stops.stop_job(db, job_id=job_id, status="cancelled", then=end)  # ended once
        assert stored(db) == [f"{job_id}-1", f"{job_id}-end"]


@pytest.mark.parametrize(
    ("plan", "wanted", "most"),
    [
        (PlanSettings(max_active_jobs=3, max_queued_pages=1000, monthly_credits=0), 2, 6),
        (PlanSettings(max_active_jobs=50, max_queued_pages=1000, monthly_credits=10), 4, 10),
    ],
    ids=["active-jobs", "credits"],
)
def test_two_stores_admitting_at_once_never_pass_the_plan(
    store: Store, database_url: str, tmp_path: Path, plan: PlanSettings, wanted: int, most: int
) -> None:
    """Two stores on one database (two Pagecast processes), each admitting jobs of one
    organization from its threads at once: what they admit together stays within the plan. Each
    admission dawdles after reading the load, as a busy process would, so that an admission not
    serialized by the database would be seen to admit past the plan."""
    second = Store(StoreSettings(database_url=database_url, data_dir=str(tmp_path / "data")))
    second.open()
    with raw_database(database_url, tmp_path) as db:
        org = Organization.select().where(Organization.name == "acme").get(db).id

    def create(n: int, target: Store) -> Awaitable[int]:
        admission = Admission(plan, Month(0, 0), page_price=1, wanted=wanted)

        def admit(load: OrgLoad) -> int:
            time.sleep(0.05)
            return admission(load)

        work = partial(
            jobs.create_job,
            job_id=jobs.new_job_id(),
            org_id=org,
            plan="free",
            kind="batch",
            options={"max_pages": wanted},
            pages=[page(f"j{n}p{p}") for p in range(wanted)],
            admit=admit,
        )
        return target.run(work, "test admission", write=True)

    async def race() -> list[int | BaseException]:
        calls = [create(n, (store, second)[n % 2]) for n in range(8)]
        return await asyncio.gather(*calls, return_exceptions=True)

    try:
        answers = asyncio.run(race())
    finally:
        second.close_sync()
    unexpected = [a for a in answers if isinstance(a, BaseException)]
    unexpected = [a for a in unexpected if not isinstance(a, AdmissionError)]
    assert not unexpected
    admitted = sum(a for a in answers if isinstance(a, int))
    assert admitted == most, answers
    with raw_database(database_url, tmp_path) as db:
        load = job_views.org_load(db, org)
    assert load.pages == most and load.jobs <= plan.max_active_jobs


def test_the_runners_upkeep_renews_the_leases_of_the_pages_in_flight(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    with raw_database(database_url, tmp_path) as db:
        job_id = new_job(db, ["a", "b"])
        kept = jobs.claim_page(db, job_id=job_id, owner="here", lease_seconds=0.5)
        left = jobs.claim_page(db, job_id=job_id, owner="here", lease_seconds=0.5)
        assert isinstance(kept, Claim) and isinstance(left, Claim)
    in_flight = {kept.id: "working"}  # the runner's tasks: only the first page is worked on
    asyncio.run(upkeep.renew(store, "here", in_flight.keys(), lease_seconds=60))
    time.sleep(0.6)
    with raw_database(database_url, tmp_path) as db:
        # The renewed page is still its owner's; the other one's lease ran out: taken over.
        taken = jobs.claim_page(db, job_id=job_id, owner="other", lease_seconds=60)
        assert isinstance(taken, Claim) and taken.id == left.id and taken.took_over
        assert jobs.claim_page(db, job_id=job_id, owner="other", lease_seconds=60) is None


def test_result_sizes_are_stored_and_older_results_measured(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    with raw_database(database_url, tmp_path) as db:
        job_id = new_job(db, ["a", "b"])
        texts = {}
        for n, word in ((1, "plain"), (2, "déjà vu ✓")):
            claimed = jobs.claim_page(db, job_id=job_id, lease_seconds=60, owner="one")
            assert claimed is not None
            outcome = Outcome(True, {"markdown": word * 500}, credits=1)
            jobs.record_page(db, job_id=job_id, page_id=claimed.id, owner="one", outcome=outcome)
            texts[n] = outcome.result_json
        expected = [(n, len(texts[n].encode())) for n in (1, 2)]
        stored = JobPage.select(JobPage.seq, JobPage.result_bytes).where(JobPage.job == job_id)
        assert sorted(stored.tuples().execute(db)) == expected, "kept beside each result"
        assert job_views.result_sizes(db, job_id=job_id, after=0, limit=5) == expected
        # A result recorded before its size was kept is measured instead.
        JobPage.update(result_bytes=None).where(JobPage.job == job_id).execute(db)
        assert job_views.result_sizes(db, job_id=job_id, after=0, limit=5) == expected


def test_a_database_of_the_step_before_gains_the_result_size_column(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    with raw_database(database_url, tmp_path) as db:
        db.execute_sql("ALTER TABLE job_page DROP COLUMN result_bytes")
        SchemaVersion.delete().where(SchemaVersion.version == 10).execute(db)
        assert "result_bytes" not in {column.name for column in db.get_columns("job_page")}
        assert migrate(db) == latest_version()
        assert "result_bytes" in {column.name for column in db.get_columns("job_page")}
        assert migrate(db) == latest_version(), "and the step is applied once"


def test_a_page_given_back_after_its_job_ended_is_skipped(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    with raw_database(database_url, tmp_path) as db:
        job_id = new_job(db, ["a", "b"])
        busy = jobs.claim_page(db, job_id=job_id, owner="one", lease_seconds=60)
        assert busy is not None
        assert job_stops.stop_job(db, job_id=job_id, status="cancelled")
        # The worker found the conversion workers busy and gives its page back: the job has
        # ended, nobody will claim it again, so it is skipped as the end skipped the other.
        assert jobs.release_page(db, page_id=busy.id, owner="one")
        assert job_views.page_counts(db, job_id=job_id) == {"skipped": 2}
