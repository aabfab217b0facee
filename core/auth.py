"""The client address that login throttling (django-axes) counts failures by."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """REMOTE_ADDR; behind a reverse proxy on this machine (`BEHIND_PROXY=1`, the proxy
    connecting from a loopback address) the address the proxy appended last to
    X-Forwarded-For: the one it saw, which the client cannot forge (entries further left
    can be)."""
    remote = request.META.get("REMOTE_ADDR", "")
    if not settings.BEHIND_PROXY or not _loopback(remote):
        return remote
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    last = forwarded.split(",")[-1].strip()
    return last if _valid(last) else remote


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _valid(address: str) -> bool:
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True
