"""Production: secrets and hosts must come from the environment; nothing insecure by default."""

import os

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403
from config.settings.base import DEV_SECRET_KEY, MIDDLEWARE


def _required(name: str) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise ImproperlyConfigured(f"Set the {name} environment variable for production.")
    return value


def _secret_key() -> str:
    """SECRET_KEY from the environment, refused when it is a known or a weak one: whoever
    knows the key can forge sessions (log in as anyone) and password-reset links."""
    key = _required("SECRET_KEY")
    if key == DEV_SECRET_KEY or key.startswith("django-insecure-"):
        raise ImproperlyConfigured(
            "SECRET_KEY is the development key, which is public: set a random one "
            "(make serve makes one in var/secret_key when SECRET_KEY is unset)."
        )
    if len(key) < 50 or len(set(key)) < 5:
        raise ImproperlyConfigured(
            "SECRET_KEY is too short or too simple (at least 50 characters, 5 different): "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(50))' makes one."
        )
    return key


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = [host.strip() for host in _required("ALLOWED_HOSTS").split(",") if host.strip()]
DEBUG = False
SESSION_COOKIE_SECURE = os.environ.get("SECURE_COOKIES", "1") == "1"
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# Behind a TLS-terminating proxy: trust its X-Forwarded-Proto, redirect plain HTTP, and send
# HSTS once the operator opts in (HSTS is hard to undo, so it stays 0 unless set).
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = os.environ.get("SECURE_SSL_REDIRECT", "1") == "1"
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
CSRF_TRUSTED_ORIGINS = [
    origin.strip()
    for origin in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",")
    if origin.strip()
]

# Static files are served by the app itself (gunicorn has no static handler and a proxy is
# optional): WhiteNoise directly after SecurityMiddleware, as its documentation requires, so
# the HTTPS redirect still applies to them and no other middleware (sessions, CSRF) runs for
# them. Only here: dev uses runserver's finders and tests need no collectstatic.
_SECURITY = "django.middleware.security.SecurityMiddleware"
MIDDLEWARE = [
    *MIDDLEWARE[: MIDDLEWARE.index(_SECURITY) + 1],
    "whitenoise.middleware.WhiteNoiseMiddleware",
    *MIDDLEWARE[MIDDLEWARE.index(_SECURITY) + 1 :],
]
# Hashed names (cacheable forever) and pre-compressed copies, made by collectstatic into
# STATIC_ROOT (base.py). Setting STORAGES replaces Django's default, so "default" (uploads in
# MEDIA_ROOT) is restated.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
