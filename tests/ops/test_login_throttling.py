"""Login throttling (django-axes, config/settings/base.py): repeated failures for one
username from one address lock that pair out; others still log in."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from core.auth import client_ip

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


@pytest.fixture
def throttled(settings):
    settings.AXES_ENABLED = True
    return settings


def attempt(client, username, password, address="127.0.0.1"):
    return client.post(LOGIN, {"username": username, "password": password},
                       REMOTE_ADDR=address)  # fmt: skip


def test_ten_failures_lock_out_the_username_from_that_address(client, owner, stranger,
                                                              throttled):  # fmt: skip
    assert throttled.AXES_FAILURE_LIMIT == 10
    for _ in range(9):
        assert attempt(client, "owner", "wrong").status_code == 200  # the form, with an error
    assert attempt(client, "owner", "wrong").status_code == 429
    # Even the right password is refused now, from that address ...
    assert attempt(client, "owner", "owner-pass").status_code == 429
    # ... but not from another one, nor for another user from the same one.
    assert attempt(client, "owner", "owner-pass", address="192.0.2.7").status_code == 302
    client.logout()
    assert attempt(client, "stranger", "stranger-pass").status_code == 302


def test_a_success_resets_the_count(client, owner, throttled):
    for _ in range(9):
        attempt(client, "owner", "wrong")
    assert attempt(client, "owner", "owner-pass").status_code == 302
    client.logout()
    for _ in range(9):
        assert attempt(client, "owner", "wrong").status_code == 200


def test_the_tests_log_in_without_throttling_by_default(client, owner, settings):
    assert settings.AXES_ENABLED is False
    assert client.login(username="owner", password="owner-pass")


@pytest.mark.parametrize(
    ("remote", "forwarded", "behind_proxy", "expected"),
    [
        ("203.0.113.5", "198.51.100.1", False, "203.0.113.5"),
        ("127.0.0.1", "198.51.100.1", False, "127.0.0.1"),
        ("127.0.0.1", "10.9.9.9, 198.51.100.1", True, "198.51.100.1"),  # the proxy's entry
        ("203.0.113.5", "198.51.100.1", True, "203.0.113.5"),  # not from the local proxy
        ("127.0.0.1", "not-an-address", True, "127.0.0.1"),
    ],
)
def test_the_client_address(settings, remote, forwarded, behind_proxy, expected):
    settings.BEHIND_PROXY = behind_proxy
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected
