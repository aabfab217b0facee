"""Request types shared by the apps' views."""

from django.contrib.auth.models import User
from django.http import HttpRequest


class AuthenticatedHttpRequest(HttpRequest):
    """The request a `login_required` view receives: its user is signed in (django-stubs'
    pattern; `HttpRequest.user` alone may be anonymous)."""

    user: User
