"""Local development: debug on, any local host."""

from config.settings.base import *  # noqa: F403
from config.settings.base import MIDDLEWARE

DEBUG = True
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]", "testserver"]

# `make run` serves with gunicorn, which has no static handler: WhiteNoise serves the
# static folders straight from the finders (no collectstatic), looked up on every request.
_SECURITY = "django.middleware.security.SecurityMiddleware"
MIDDLEWARE = [
    *MIDDLEWARE[: MIDDLEWARE.index(_SECURITY) + 1],
    "whitenoise.middleware.WhiteNoiseMiddleware",
    *MIDDLEWARE[MIDDLEWARE.index(_SECURITY) + 1 :],
]
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
