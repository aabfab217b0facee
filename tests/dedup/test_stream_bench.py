"""`manage.py dedup_stream_bench`: one JSON object, and nothing left behind."""

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from dedup.models import DedupRun
from documents.models import Collection, Document

pytestmark = pytest.mark.django_db


def test_the_streaming_benchmark_reports_its_timings_and_deletes_what_it_made(reprints):
    out = io.StringIO()
    call_command(
        "dedup_stream_bench", "--members", "30", "--new", "4", "--pages", reprints, stdout=out
    )
    report = json.loads(out.getvalue())
    assert (report["method"], report["members"], report["assignment_ms"]["n"]) == ("periods", 30, 3)
    assert 0 < report["assignment_ms"]["p50"] <= report["assignment_ms"]["max"]
    assert report["first_assignment_ms"] > 0 and report["run_seconds"] >= 0
    assert not Collection.objects.exists() and not Document.objects.exists()
    assert not DedupRun.objects.exists() and not get_user_model().objects.exists()


def test_the_streaming_benchmark_refuses_nonsense(tmp_path):
    with pytest.raises(CommandError, match="--new at least 2"):
        call_command("dedup_stream_bench", "--members", "5", "--new", "1")
    with pytest.raises(CommandError, match="no folder of pages"):
        call_command("dedup_stream_bench", "--pages", tmp_path / "missing")
