"""Fixtures shared by the app tests of documents/."""

import pytest

from documents import services


@pytest.fixture
def assignment(owner):
    """An assignment collection of `owner` named "Essay 1"."""
    return services.collection_create(owner=owner, name="Essay 1")
