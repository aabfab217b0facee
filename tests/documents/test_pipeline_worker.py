"""End to end: API upload -> Redis -> a real Celery worker -> PostgreSQL -> the report API."""

from __future__ import annotations

import io
import time
import xml.etree.ElementTree as ET
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.documents.factories import wait_until_finished


def truth_passages(xml_path):
    """[(this_start, this_end, source_start, source_end)] of a PAN truth file."""
    passages = []
    for feature in ET.parse(xml_path).getroot().iter("feature"):
        if feature.get("name") != "plagiarism":
            continue
        start, length = int(feature.get("this_offset")), int(feature.get("this_length"))
        s_start, s_length = int(feature.get("source_offset")), int(feature.get("source_length"))
        passages.append((start, start + length, s_start, s_start + s_length))
    return passages


def overlaps(a_start, a_end, b_start, b_end):
    return a_start < b_end and b_start < a_end


@pytest.mark.django_db(transaction=True)
def test_uploads_are_processed_by_a_real_worker(celery_worker, shared_data, owner):
    reuse = shared_data / "zh-reuse-dev"
    truth_file = sorted((reuse / "02-none").glob("suspicious-document*.xml"))[0]
    suspicious_name, source_name = truth_file.stem.split("-source-")
    suspicious_name, source_name = f"{suspicious_name}.txt", f"source-{source_name}.txt"
    truth = truth_passages(truth_file)
    assert truth, f"{truth_file} lists no copied passage"

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")
    collection = client.post("/api/collections/", {"name": "e2e"}, format="json").json()["id"]

    def upload(folder, name):
        data = (reuse / folder / name).read_bytes()
        response = client.post(
            f"/api/collections/{collection}/documents/",
            {"file": SimpleUploadedFile(name, data)},
            format="multipart",
        )
        assert response.status_code == 201, response.content
        return response.json()["id"]

    # The suspicious document goes first: when it is processed the source is not indexed yet,
    # so its report depends on the source's run mirroring the match back onto it.
    suspicious = upload("susp", suspicious_name)
    source = upload("src", source_name)
    finished = wait_until_finished(
        lambda i: client.get(f"/api/documents/{i}/").json(), [suspicious, source]
    )
    assert [finished[i]["status"] for i in (suspicious, source)] == ["done", "done"], finished

    report = client.get(f"/api/documents/{suspicious}/report/").json()
    assert [entry["document"] for entry in report["sources"]] == [source]
    found = report["sources"][0]["passages"]
    for start, end, s_start, s_end in truth:
        assert any(
            overlaps(p["start"], p["end"], start, end)
            and overlaps(p["source_start"], p["source_end"], s_start, s_end)
            for p in found
        ), (found, truth)
    for p in found:
        assert any(overlaps(p["start"], p["end"], t[0], t[1]) for t in truth), (p, truth)
    assert 0 < report["similarity"] <= 1

    text = client.get(f"/api/documents/{suspicious}/text/").content.decode()
    with open(reuse / "susp" / suspicious_name, encoding="utf-8", newline="") as handle:
        # Extraction tidies plain text; for these files that only drops the final newline,
        # so the truth offsets index the extracted text too.
        assert text == handle.read().rstrip("\n")
    back = client.get(f"/api/documents/{source}/report/").json()
    assert [entry["document"] for entry in back["sources"]] == [suspicious]


@pytest.mark.django_db(transaction=True)
def test_an_archive_imported_in_bulk_by_a_real_worker_is_checked_against(
    celery_worker, shared_data, owner
):
    reuse = shared_data / "zh-reuse-dev"
    truth_file = sorted((reuse / "02-none").glob("suspicious-document*.xml"))[0]
    suspicious_name, source_name = truth_file.stem.split("-source-")
    suspicious_name, source_name = f"{suspicious_name}.txt", f"source-{source_name}.txt"
    others = [p for p in sorted((reuse / "src").glob("*.txt")) if p.name != source_name][:5]
    batch = io.BytesIO()
    with zipfile.ZipFile(batch, "w") as package:
        for path in [reuse / "src" / source_name, *others]:
            package.writestr(f"published/{path.name}", path.read_bytes())

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")
    archive = client.post(
        "/api/collections/", {"name": "past", "kind": "archive"}, format="json"
    ).json()["id"]
    response = client.post(
        f"/api/collections/{archive}/imports/",
        {"files": [SimpleUploadedFile("past.zip", batch.getvalue())]},
        format="multipart",
    )
    assert response.status_code == 202, response.content
    deadline = time.monotonic() + 240
    while (job := client.get(f"/api/collections/{archive}/imports/").json()[0])["status"] in (
        "queued",
        "running",
    ):
        assert time.monotonic() < deadline, job
        time.sleep(0.5)
    assert (job["status"], job["imported"], job["files"]) == ("done", 6, 6), job

    essays = client.post("/api/collections/", {"name": "essays"}, format="json").json()["id"]
    data = (reuse / "susp" / suspicious_name).read_bytes()
    suspicious = client.post(
        f"/api/collections/{essays}/documents/",
        {"file": SimpleUploadedFile(suspicious_name, data)},
        format="multipart",
    ).json()["id"]
    wait_until_finished(lambda i: client.get(f"/api/documents/{i}/").json(), [suspicious])
    report = client.get(f"/api/documents/{suspicious}/report/").json()
    assert [entry["title"] for entry in report["sources"]] == [f"published/{source_name}"]
