"""Shared fixtures: users (owner and stranger), API clients, the shared development data."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    """`<repo>/../shared/data`, or skip when this checkout has no shared data next to it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared development data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user(username="owner", password="owner-pass")


@pytest.fixture
def stranger(django_user_model):
    return django_user_model.objects.create_user(username="stranger", password="stranger-pass")


@pytest.fixture
def api(owner):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(owner)
    return client


@pytest.fixture
def anonymous_api():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture(autouse=True)
def _empty_index_after_transactional_tests(request):
    """Flushing a transactional test's database only truncates Django-managed tables; the
    raw-SQL index tables are emptied here so no postings leak into the next test."""
    yield
    marker = request.node.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or any(
        name in request.fixturenames for name in ("transactional_db", "live_server")
    )
    if not transactional:
        return
    from django.db import connection

    django_db_blocker = request.getfixturevalue("django_db_blocker")
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("TRUNCATE documents_posting, documents_feature_df")
