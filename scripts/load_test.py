"""Bounded load test of a running `make run` (or `make serve`) on this machine.

    .venv/bin/python scripts/load_test.py [--url http://127.0.0.1:8000] [--user demo]

1. 50 uploads at once (`--uploads`) through the JSON API into a new collection, while 50
   readers (`--readers`) read reports of the documents uploaded so far (a report not ready
   yet, 409, is no error);
2. waits until every accepted document is processed (at most `--wait` seconds);
3. 100 report reads (`--reads`) of the processed documents, 50 at a time.

Errors are failed requests (connection reset, timeout, 5xx, any unexpected status); lost are
accepted uploads that ended neither `done` nor `failed`. Exit status 0 only when there are no
errors, none lost and none failed. Only loopback
addresses are accepted; every loop is bounded in count and time, and the test stops by itself.
The API token of `--user` is made (or read) through Django, which reaches the instance the
scripts started (var/instance.env).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REQUEST_TIMEOUT = 120.0
POLL_INTERVAL = 2.0
WORDS = (
    "river stone market garden teacher window morning letter city winter harbour bridge "
    "forest doctor island village summer engine paper station mountain kitchen student "
    "evening lantern orchard meadow library captain weather signal valley ocean festival"
).split()


@dataclass
class Tally:
    """Outcomes of one phase, thread-safe."""

    counts: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, outcome: str, error: str | None = None) -> None:
        with self.lock:
            self.counts[outcome] += 1
            if error is not None:
                self.errors.append(error)


def loopback_only(url: str) -> None:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    sys.exit(f"refused: {url} is not a loopback address (this test only runs on this machine)")


def api_token(user: str) -> str:
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    account = get_user_model().objects.get(username=user)
    return Token.objects.get_or_create(user=account)[0].key


def request(
    base: str, token: str, method: str, path: str, body: bytes | None = None, ctype: str = ""
) -> tuple[int, bytes]:
    headers = {"Authorization": f"Token {token}", "Accept": "application/json"}
    if ctype:
        headers["Content-Type"] = ctype
    req = urllib.request.Request(base + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=REQUEST_TIMEOUT) as response:  # noqa: S310
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def multipart(name: str, data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    return head + data + tail, f"multipart/form-data; boundary={boundary}"


def essays(count: int, seed: int) -> list[bytes]:
    """Texts of ~60 sentences; each shares a third of its sentences with the one before, so
    the reports have matches to find."""
    rng = random.Random(seed)

    def sentence() -> str:
        words = [rng.choice(WORDS) for _ in range(rng.randint(9, 16))]
        return " ".join(words).capitalize() + "."

    texts: list[list[str]] = []
    for index in range(count):
        own = [sentence() for _ in range(60)]
        if index:
            own[:20] = texts[-1][20:40]
        texts.append(own)
    return [" ".join(text).encode() for text in texts]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--user", default="demo")
    parser.add_argument("--uploads", type=int, default=50)
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--reads", type=int, default=100)
    parser.add_argument("--wait", type=float, default=600.0, help="seconds, for processing")
    args = parser.parse_args()
    base = args.url.rstrip("/")
    loopback_only(base)
    uploads = min(args.uploads, 500)
    reads = min(args.reads, 1000)
    token = api_token(args.user)

    status, body = request(
        base, token, "POST", "/api/collections/",
        json.dumps({"name": f"load test {time.strftime('%H:%M:%S')}"}).encode(),
        "application/json",
    )  # fmt: skip
    if status != 201:
        sys.exit(f"could not create a collection: {status} {body[:300]!r}")
    collection = json.loads(body)["id"]
    texts = essays(uploads, seed=collection)

    # Phase 1: the uploads at once, readers beside them.
    accepted: list[int] = []
    accepted_lock = threading.Lock()
    upload_tally, early_tally = Tally(), Tally()
    start = threading.Barrier(uploads + args.readers)
    uploading = threading.Event()
    uploading.set()

    def upload(index: int) -> None:
        payload, ctype = multipart(f"essay-{index:03d}.txt", texts[index])
        start.wait()
        try:
            status, body = request(
                base, token, "POST", f"/api/collections/{collection}/documents/", payload, ctype
            )
        except OSError as error:
            upload_tally.add("error", f"upload {index}: {error!r}")
            return
        if status == 201:
            with accepted_lock:
                accepted.append(json.loads(body)["id"])
            upload_tally.add("accepted")
        else:
            upload_tally.add("error", f"upload {index}: {status} {body[:200]!r}")

    def early_reader(count: int) -> None:
        start.wait()
        give_up = time.monotonic() + REQUEST_TIMEOUT
        while count and time.monotonic() < give_up:
            with accepted_lock:
                target = random.choice(accepted) if accepted else None
            if target is None:
                if not uploading.is_set():
                    return
                time.sleep(0.05)
                continue
            read(target, early_tally)
            count -= 1

    def read(document: int, tally: Tally) -> None:
        try:
            status, body = request(base, token, "GET", f"/api/documents/{document}/report/")
        except OSError as error:
            tally.add("error", f"report {document}: {error!r}")
            return
        if status == 200:
            tally.add("ok")
        elif status == 409:
            tally.add("not ready")
        else:
            tally.add("error", f"report {document}: {status} {body[:200]!r}")

    per_reader = [reads // args.readers + (i < reads % args.readers) for i in range(args.readers)]
    t0 = time.monotonic()
    with ThreadPoolExecutor(uploads + args.readers) as pool:
        jobs = [pool.submit(upload, i) for i in range(uploads)]
        readers = [pool.submit(early_reader, n) for n in per_reader]
        for job in jobs:
            job.result()
        uploading.clear()
        for job in readers:
            job.result()
    upload_seconds = time.monotonic() - t0

    # Phase 2: every accepted document processed, within the bound.
    deadline = time.monotonic() + args.wait
    statuses: dict[int, str] = {}
    while time.monotonic() < deadline:
        status, body = request(base, token, "GET", f"/api/collections/{collection}/documents/")
        if status == 200:
            statuses = {row["id"]: row["status"] for row in json.loads(body)}
            if all(statuses.get(doc) in ("done", "failed") for doc in accepted):
                break
        time.sleep(POLL_INTERVAL)
    process_seconds = time.monotonic() - t0
    done = [doc for doc in accepted if statuses.get(doc) == "done"]
    failed = [doc for doc in accepted if statuses.get(doc) == "failed"]
    lost = [doc for doc in accepted if statuses.get(doc) not in ("done", "failed")]

    # Phase 3: report reads of the processed documents.
    late_tally = Tally()
    if done:
        with ThreadPoolExecutor(args.readers) as pool:
            list(pool.map(lambda i: read(done[i % len(done)], late_tally), range(reads)))

    errors = upload_tally.errors + early_tally.errors + late_tally.errors
    report = {
        "collection": collection,
        "uploads": {"sent": uploads, **upload_tally.counts},
        "reads_during_uploads": dict(early_tally.counts),
        "processed": {"done": len(done), "failed": len(failed), "lost": len(lost)},
        "reads_after": dict(late_tally.counts),
        "seconds": {"uploads": round(upload_seconds, 1), "all_done": round(process_seconds, 1)},
        "errors": len(errors),
        "lost": len(lost),
    }
    print(json.dumps(report, indent=2))
    for line in errors[:10]:
        print("error:", line, file=sys.stderr)
    return 0 if not errors and not lost and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
