"""Fault injection on the real stack: `make test-faults` (scripts/test_faults.sh runs this).

This tree's PostgreSQL and Redis (scripts/services.sh), a Celery worker started here as
`make run` starts it (prefork, two children, its sweep timer on), and uploads through the
API with Django's test client. Every scenario uploads the same documents (texts that copy
from each other) into a collection of its own, injects one fault, and waits, without any
manual step, until every accepted document is finished. It then counts the documents done,
the duplicated rows, and the reports that equal those of the run without faults.

The retry budget (core.transient), the leases (core.lease) and the sweep interval are made
short through the environment so that an outage "longer than the retry budget" takes seconds.
Prints a Markdown table; exits 1 when a scenario loses, fails, duplicates or changes anything.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = int(os.environ.get("FAULT_DOCUMENTS", 12))
OUTAGE_SECONDS = float(os.environ.get("FAULT_OUTAGE_SECONDS", 15))
FINISH_WITHIN_SECONDS = 600
# Short budgets for the worker (and this process): retries 1 s and 2 s apart, leases of 6 s,
# a sweep every 3 s.
FAST = {
    "TRANSIENT_ATTEMPTS": "3",
    "TRANSIENT_FIRST_DELAY_SECONDS": "1",
    "LEASE_SECONDS": "6",
    "LEASE_GRACE_SECONDS": "6",
    "SWEEP_SECONDS": "3",
}

# Made-up words (Latin letters, and pairs of common hanzi): two paragraphs written apart share
# no sentence by chance, so each report holds exactly the copied paragraphs.
_WORDS = random.Random(2026)
EN_WORDS = [
    "".join(_WORDS.choice("bcdfghjklmnpqrstvwxz" if i % 2 else "aeiou") for i in range(7))
    for _ in range(3000)
]
ZH_WORDS = ["".join(chr(0x4E00 + _WORDS.randrange(3000)) for _ in range(2)) for _ in range(3000)]


def paragraph(rng: random.Random, chinese: bool) -> str:
    """Random sentences, ended by a word of the paragraph's own: a copied passage's borders
    are the paragraph's. (Words that happen to agree across a border extend a passage on one
    side only, and which side is stored depends on which of the two documents was checked
    last: an order this suite does not fix.)"""
    sentences = []
    for _ in range(rng.randint(6, 10)):
        words = [rng.choice(ZH_WORDS if chinese else EN_WORDS) for _ in range(rng.randint(8, 16))]
        if chinese:
            sentences.append("".join(words) + "。")
        else:
            sentences.append(" ".join(words).capitalize() + ".")
    tag = "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(10))
    sentences.append(f"{tag}。" if chinese else f"{tag.capitalize()}.")
    return ("" if chinese else " ").join(sentences)


def corpus() -> list[tuple[str, bytes]]:
    """`DOCUMENTS` texts of six paragraphs each, English and Chinese: four of their own, one
    copied from the previous text and one from a common source, so reports have passages."""
    rng = random.Random(31)
    common = paragraph(rng, False) + "\n\n" + paragraph(rng, True)
    own = [[paragraph(rng, i % 2 == 1) for i in range(4)] for _ in range(DOCUMENTS)]
    texts = []
    for number in range(DOCUMENTS):
        copied = own[number - 1][number % 4]
        parts = [*own[number][:2], copied, common, *own[number][2:]]
        texts.append((f"essay-{number:02}.txt", "\n\n".join(parts).encode()))
    return texts


# --- the stack ---------------------------------------------------------------------------


def services(action: str, name: str) -> None:
    subprocess.run(["bash", str(REPO / "scripts" / "services.sh"), action, name], check=True)


class Worker:
    """A Celery worker as `make run` starts one, on this run's database and queues."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env = env
        self.log_dir = log_dir
        self.process: subprocess.Popen[bytes] | None = None
        self.started = 0
        self.restarts = 0  # after the worker ended by itself
        self.orphans: list[int] = []

    def start(self) -> None:
        from django.conf import settings

        self.started += 1
        log = self.log_dir / f"faults-worker-{self.started}.log"
        queues = f"{settings.DOCUMENTS_QUEUE},{settings.DOCUMENTS_BULK_QUEUE}"
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency=2"]
        command += ["-Q", queues, "-n", f"faults-{os.getpid()}-{self.started}@%h"]
        command += ["--loglevel=INFO"]
        with open(log, "wb") as output:
            self.process = subprocess.Popen(
                command, cwd=REPO, env=self.env, stdout=output, stderr=output
            )
        deadline = time.monotonic() + 120
        while " ready." not in log.read_text(errors="replace"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the worker did not start:\n{log.read_text()}")
            time.sleep(0.3)

    def supervise(self) -> None:
        """Start the worker again if it ended by itself, as `make run` and `make serve` do
        (Celery's consumer can die of a lost broker connection: "Unrecoverable error")."""
        if self.process is not None and self.process.poll() is not None:
            print(f"  the worker ended ({self.process.returncode}); starting it again", flush=True)
            self.restarts += 1
            self.start()

    def kill(self) -> None:
        """SIGKILL the main process (its pool children are left as they are, as they would be)."""
        assert self.process is not None
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        self.orphans += [int(pid) for pid in children.read_text().split()]
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for pid in self.orphans:  # pool children of a killed worker, started by this run
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        self.orphans = []


def database(read: Callable[[], Any]) -> Any:
    """`read()`, again on a new connection while the database is down or restarting."""
    from django.db import Error, connection

    for _ in range(600):
        try:
            return read()
        except Error:
            connection.close()
            time.sleep(0.5)
    raise RuntimeError("the database did not come back")


# --- one scenario --------------------------------------------------------------------------


@dataclass
class Outcome:
    fault: str
    unfinished: int  # documents not yet done when the fault began
    uploaded: int
    accepted: int
    done: int
    failed: int
    duplicates: int
    reports_equal: int
    restarts: int  # of a worker that ended by itself
    seconds: float

    @property
    def ok(self) -> bool:
        return (
            self.accepted == self.uploaded == self.done
            and not self.failed
            and not self.duplicates
            and self.reports_equal == self.accepted
        )


class Run:
    def __init__(self, worker: Worker) -> None:
        from django.contrib.auth import get_user_model

        self.worker = worker
        self.user = get_user_model().objects.create_user(username="faults", password="x")
        self.files = corpus()
        self.baseline: dict[str, Any] | None = None

    def client(self) -> Any:
        from rest_framework.test import APIClient

        client = APIClient()
        client.force_authenticate(self.user)
        return client

    def upload(self, collection_id: int) -> int:
        """Upload every file; how many were accepted (201)."""
        from django.core.files.uploadedfile import SimpleUploadedFile

        accepted = 0
        for name, data in self.files:
            response = self.client().post(
                f"/api/collections/{collection_id}/documents/",
                {"file": SimpleUploadedFile(name, data, content_type="text/plain")},
                format="multipart",
            )
            accepted += response.status_code == 201
            if response.status_code != 201:
                print(f"  upload of {name}: {response.status_code} {response.content[:200]!r}")
        return accepted

    def statuses(self, collection_id: int) -> list[str]:
        from documents.models import Document

        rows = Document.objects.filter(collection_id=collection_id)
        return database(lambda: list(rows.values_list("status", flat=True)))

    def wait(self, collection_id: int, enough: Callable[[list[str]], bool]) -> None:
        deadline = time.monotonic() + FINISH_WITHIN_SECONDS
        while not enough(self.statuses(collection_id)):
            self.worker.supervise()
            if time.monotonic() > deadline:
                raise RuntimeError(f"collection {collection_id}: {self.statuses(collection_id)}")
            time.sleep(0.5)

    def reports(self, collection_id: int) -> dict[str, Any]:
        """Each document's report: its sources (by file name) and passages."""
        from documents.models import MatchPassage

        def read() -> dict[str, Any]:
            found: dict[str, list[tuple[Any, ...]]] = {}
            passages = MatchPassage.objects.filter(match__document__collection_id=collection_id)
            for row in passages.values_list(
                "match__document__filename", "match__source__filename",
                "start", "end", "source_start", "source_end",
            ):  # fmt: skip
                found.setdefault(row[0], []).append(row[1:])
            return {name: sorted(rows) for name, rows in found.items()}

        return database(read)

    def scenario(
        self, fault: str, inject: Callable[[], None] | None, *, during_uploads: bool = False
    ) -> Outcome:
        from documents import services

        print(f"- {fault}", flush=True)
        started = time.monotonic()
        restarts = self.worker.restarts
        collection = database(lambda: services.collection_create(owner=self.user, name=fault[:200]))
        unfinished = 0
        if during_uploads and inject is not None:
            accepted = self._with_fault(inject, lambda: self.upload(collection.id))
            unfinished = accepted
        else:
            accepted = self.upload(collection.id)
            if inject is not None:
                # Once processing is under way: some done, others queued or running.
                self.wait(collection.id, lambda s: s.count("done") >= 2)
                unfinished = len(self.files) - self.statuses(collection.id).count("done")
                inject()
        self.wait(collection.id, lambda s: all(x in ("done", "failed") for x in s))
        statuses = self.statuses(collection.id)
        reports = self.reports(collection.id)
        if self.baseline is None:
            self.baseline = reports
        names = [name for name, _ in self.files]
        equal = sum(reports.get(name) == self.baseline.get(name) for name in names)
        for name in names:
            if reports.get(name) != self.baseline.get(name):
                print(f"  {name}: {reports.get(name)} != {self.baseline.get(name)}")
        outcome = Outcome(
            fault=fault,
            unfinished=unfinished,
            uploaded=len(self.files),
            accepted=accepted,
            done=statuses.count("done"),
            failed=statuses.count("failed"),
            duplicates=len(statuses) - accepted,
            reports_equal=equal,
            restarts=self.worker.restarts - restarts,
            seconds=time.monotonic() - started,
        )
        print(f"  {outcome}", flush=True)
        return outcome

    @staticmethod
    def _with_fault(inject: Callable[[], None], work: Callable[[], int]) -> int:
        """Run `work` while `inject` (an outage) runs in a thread."""
        import threading

        thread = threading.Thread(target=inject)
        thread.start()
        time.sleep(3)  # Redis is down by then
        try:
            return work()
        finally:
            thread.join()


def outage(name: str, seconds: float) -> Callable[[], None]:
    def inject() -> None:
        services("stop", name)
        time.sleep(seconds)
        services("start", name)

    return inject


def scenarios(run: Run, worker: Worker) -> list[Outcome]:
    def kill_and_restart() -> None:
        worker.kill()
        time.sleep(2)
        worker.start()  # what the supervisor of make run / make serve does

    chosen = os.environ.get("FAULT_SCENARIOS", "")  # e.g. "1,4": the baseline and those
    if chosen:
        picked = [int(n) for n in chosen.split(",")]
        menu = [
            ("none (baseline)", None),
            ("Redis stopped", outage("redis", OUTAGE_SECONDS)),
            ("Redis stopped during uploads", outage("redis", OUTAGE_SECONDS)),
            ("PostgreSQL restarted during processing", outage("postgres", 1)),
            ("PostgreSQL stopped", outage("postgres", 2 * OUTAGE_SECONDS)),
            ("worker SIGKILLed", kill_and_restart),
        ]
        return [run.scenario(menu[n][0], menu[n][1], during_uploads=n == 2) for n in [0, *picked]]
    return [
        run.scenario("none (baseline)", None),
        run.scenario(f"Redis stopped {OUTAGE_SECONDS:g} s during processing",
                     outage("redis", OUTAGE_SECONDS)),
        run.scenario(f"Redis stopped {OUTAGE_SECONDS:g} s during uploads",
                     outage("redis", OUTAGE_SECONDS), during_uploads=True),
        run.scenario("PostgreSQL restarted during processing", outage("postgres", 1)),
        run.scenario(f"PostgreSQL stopped {2 * OUTAGE_SECONDS:g} s (retry budget 3 s)",
                     outage("postgres", 2 * OUTAGE_SECONDS)),
        run.scenario("worker main process SIGKILLed, restarted", kill_and_restart),
    ]  # fmt: skip


def table(outcomes: list[Outcome]) -> str:
    lines = [
        f"| fault injected ({DOCUMENTS} documents each) | unfinished at the fault | accepted "
        "| done | failed | duplicates | reports equal | worker restarted | minutes |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for o in outcomes:
        lines.append(
            f"| {o.fault} | {o.unfinished} | {o.accepted}/{o.uploaded} | {o.done} | {o.failed} "
            f"| {o.duplicates} | {o.reports_equal}/{o.accepted} | {o.restarts} "
            f"| {o.seconds / 60:.1f} |"
        )
    return "\n".join(lines)


def main() -> int:
    # Stopped (SIGTERM): the worker is stopped and the database dropped all the same.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    os.environ.setdefault("TEST_DATABASE_NAME", f"test_faults_{os.getpid()}")
    os.environ.update(FAST)
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    from config.celery import app

    name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    settings_dict = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{settings_dict['USER']}:{settings_dict['PASSWORD']}@"
            f"{settings_dict['HOST']}:{settings_dict['PORT']}/{name}"
        ),
        "TEST_CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "TEST_CELERY_QUEUE": settings.DOCUMENTS_QUEUE,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
    }
    log_dir = REPO / "var" / "log"
    log_dir.mkdir(parents=True, exist_ok=True)
    app.control.purge()
    worker = Worker(env, log_dir)
    try:
        worker.start()
        outcomes = scenarios(Run(worker), worker)
    finally:
        worker.stop()
        app.control.purge()
        database(lambda: connection.creation.destroy_test_db(name, verbosity=0))
    print()
    print(table(outcomes))
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
