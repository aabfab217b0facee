"""Migration 0028: every user gets a personal workspace as its admin, and the collections
that existed before workspaces move into their owner's."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("documents", "0027_upload_keys")]
AFTER = [("documents", "0029_archive_share")]


@pytest.fixture
def migrated_back(transactional_db):
    """The database at BEFORE for the test, at the latest migrations again after it."""
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    yield executor.loader.project_state(BEFORE).apps
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_existing_collections_move_into_their_owner_personal_workspace(migrated_back):
    old = migrated_back
    User = old.get_model("auth", "User")
    Collection = old.get_model("documents", "Collection")
    ann, bob, _ = (User.objects.create(username=name) for name in ("ann", "bob", "cy"))
    for owner, name in ((ann, "Essay 1"), (ann, "Archive"), (bob, "Essay 2")):
        Collection.objects.create(owner=owner, name=name)

    executor = MigrationExecutor(connection)  # the graph as it is now, migrated forward
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    Workspace = new.get_model("workspaces", "Workspace")
    moved = new.get_model("documents", "Collection").objects.order_by("name")
    assert [(c.name, c.workspace.name, c.workspace.personal_of_id) for c in moved] == [
        ("Archive", "ann", ann.id),
        ("Essay 1", "ann", ann.id),
        ("Essay 2", "bob", bob.id),
    ]
    assert Workspace.objects.count() == 3  # cy has one too, empty
    memberships = new.get_model("workspaces", "Membership").objects
    assert sorted(memberships.values_list("user__username", "role")) == [
        ("ann", "admin"), ("bob", "admin"), ("cy", "admin")
    ]  # fmt: skip
