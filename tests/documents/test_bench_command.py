"""`manage.py bench` at a tiny size: one JSON object with every figure, sane values.

No timing is asserted (a benchmark measures speed, a test asserts behaviour): only that the
fields exist, that counts add up and that rates and latencies are positive numbers.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

REPO = Path(__file__).resolve().parents[2]


def _database_url(settings_dict: dict) -> str:
    user, password = settings_dict["USER"], settings_dict["PASSWORD"]
    host, port, name = settings_dict["HOST"], settings_dict["PORT"], settings_dict["NAME"]
    return f"postgres://{user}:{password}@{host}:{port}/{name}"


@pytest.fixture(scope="module")
def bench_report(django_db_setup, django_db_blocker, tmp_path_factory):
    """Run `manage.py bench` once, as a user would (own process), against pytest's database.

    The bench creates, fills and (here, afterwards) drops a database of its own next to it.
    """
    with django_db_blocker.unblock():
        settings_dict = dict(connection.settings_dict)
    name = f"{settings_dict['NAME']}_archive_bench"
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    command = [
        sys.executable, "manage.py", "bench", "--docs", "60", "--sizes", "30,45,60",
        "--base-docs", "24", "--ingest-docs", "10", "--queries", "2", "--processes", "2",
        "--ingest-processes", "1",
        "--batch", "20", "--ingest-batch", "4", "--database", name, "--json-out", str(out),
    ]  # fmt: skip
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test",
           "DATABASE_URL": _database_url(settings_dict)}  # fmt: skip
    try:
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    finally:
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout), json.loads(out.read_text())


def test_it_prints_one_json_object_with_every_figure(bench_report):
    report, written = bench_report
    assert report == written
    for key in ("machine", "corpus", "ingest", "copy_load", "curve", "peer", "targets", "method"):
        assert key in report
    ingest = report["ingest"]
    assert ingest["documents"] == 10 and ingest["processes"] == 1
    for key in ("ingest_mb_per_s_per_process", "tokenizer_mb_per_s_per_process",
                "ingest_docs_per_s_per_process", "ingest_to_tokenizer_ratio"):  # fmt: skip
        assert ingest[key] > 0
    assert all(w["max_rss_mb"] > 0 for w in ingest["workers"])
    ratios = ingest["overlapped_pass_ratios"]  # the headline is the median pass of three
    assert len(ratios) == 3 and ingest["ingest_to_tokenizer_ratio"] == sorted(ratios)[1]
    sequential = ingest["sequential"]  # the same texts, written without the overlap
    assert sequential["documents"] == 10 and sequential["postings"] == ingest["postings"]
    all_cores = ingest["all_cores"]  # the same texts, a worker per core
    assert all_cores["processes"] == 2 and all_cores["postings"] == ingest["postings"]
    for figures in (ingest, sequential, all_cores):
        assert all(w["ingest_seconds"] > 0 for w in figures["workers"])
    assert report["copy_load"]["documents"] == 50
    assert report["copy_load"]["postings_per_s_copy"] > 0
    assert report["remove_at_largest_size"]["documents"] == 20
    assert report["batch_all_pairs"]["documents"] == 30


def test_the_sources_of_the_queries_are_found_and_the_peer_is_scored_alike(bench_report):
    report, _ = bench_report
    # Every worst-case query is copied run by run from archive documents: the full check
    # reports most of them; the peer's candidates are scored against the same ground truth.
    assert all(point["source_recall"] >= 0.5 for point in report["curve"])
    peer = report["peer"]
    for figures in (peer, peer["at_low_threshold"]):
        assert 0.0 <= figures["source_recall"] <= 1.0
    assert peer["at_low_threshold"]["candidates_p50"] >= peer["candidates_p50"]
    assert "source_recall" in peer["ours_at_same_size"]


def test_the_curve_has_a_point_per_size_with_growing_postings(bench_report):
    report, _ = bench_report
    curve = report["curve"]
    assert [point["documents"] for point in curve] == [30, 45, 60]
    postings = [point["postings"] for point in curve]
    assert postings == sorted(postings) and postings[0] > 0
    for point in curve:
        assert 0 < point["lookup_p50_ms"] <= point["lookup_p95_ms"]
        slowest = point["slowest_lookups"]
        assert slowest[0]["ms"] == max(s["ms"] for s in slowest) >= point["lookup_p95_ms"]
        assert all(s["features"] > 0 and s["postings"] >= 0 for s in slowest)
        assert 0 < point["check_p50_ms"] <= point["check_p95_ms"]
        assert point["posting_mb_per_million_postings"] > 0
        assert point["queries"] == 2
        assert point["checkpoint_before_latency"] is True  # services.sh grants pg_checkpoint
        recording = point["heavy_features_recording"]  # as a bulk import ends
        assert recording["seconds"] >= 0 and recording["features_recorded_or_raised"] >= 0
        assert isinstance(point["autovacuum_runs_during_latency"], dict)
        shares = point["cpu_during_latency"]  # None only if no clock tick passed (or no /proc)
        assert shares is None or (0 <= shares["busy"] <= 1 and 0 <= shares["steal"] <= 1)
        typical = point["typical"]  # the second kind of query, reported apart
        assert typical["queries"] == 2
        assert 0 < typical["lookup_p50_ms"] <= typical["lookup_p95_ms"]
    peer = report["peer"]
    assert peer["documents"] == 30 and peer["index_docs_per_s"] > 0
    assert peer["ours_at_same_size"]["documents"] == 30
    assert 0.5 < report["corpus"]["composed_analysis_agreement"]["mean"] <= 1.0


@pytest.mark.django_db
def test_it_leaves_the_default_database_alone(bench_report):
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM documents_posting")
        assert cursor.fetchone()[0] == 0
        cursor.execute("SELECT count(*) FROM documents_document")
        assert cursor.fetchone()[0] == 0
