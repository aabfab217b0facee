"""Client-side routing to the posting partitions must agree with PostgreSQL's own hash, and
feature lists must reach the server intact as binary bigint[] parameters."""

import numpy as np
import pytest
from django.db import connection

from documents.index.lookup import POSTING_PARTITIONS, POSTING_TABLE, Int8Array, lookup_cursor
from documents.index.partition import partition_of

EDGES = [0, 1, -1, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32, 2**63 - 1, -(2**63)]


@pytest.mark.django_db
def test_partition_of_agrees_with_satisfies_hash_partition():
    rng = np.random.default_rng(20261121)
    values = np.concatenate([rng.integers(-(2**63), 2**63 - 1, 3000, dtype=np.int64), EDGES])
    ours = partition_of(values, POSTING_PARTITIONS)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT f, (SELECT r FROM generate_series(0, %s - 1) r WHERE"
            f" satisfies_hash_partition('{POSTING_TABLE}'::regclass, %s, r, f))"
            " FROM unnest(%s::bigint[]) f",
            [POSTING_PARTITIONS, POSTING_PARTITIONS, values.tolist()],
        )
        server = dict(cursor.fetchall())
    assert {value: server[value] for value in values.tolist()} == dict(
        zip(values.tolist(), ours.tolist(), strict=True)
    )
    assert set(ours.tolist()) == set(range(POSTING_PARTITIONS))  # every partition is used


@pytest.mark.django_db
@pytest.mark.parametrize("values", [[], [7], EDGES, list(range(-500, 500, 3))])
def test_int8_array_parameters_arrive_intact(values):
    connection.ensure_connection()
    with lookup_cursor(connection.connection) as cursor:
        cursor.execute(
            "SELECT coalesce(array_length(%s, 1), 0), %s::bigint[]",
            [Int8Array(np.array(values, dtype=np.int64))] * 2,
        )
        length, back = cursor.fetchone()
    assert length == len(values)
    assert back == values
