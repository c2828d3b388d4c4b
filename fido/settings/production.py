"""Production settings: the base settings hardened so that ``manage.py check --deploy`` is clean.

The default of every entry point (``manage.py``, ``fido.wsgi``, ``fido.asgi``, the Celery app
``fido.celery``, so ``deploy/Procfile``): a deployment that sets nothing runs these, never the
development defaults. ``make demo``, ``make test`` / ``make lint`` / ``make bench`` and the
test suite ask for ``fido.settings.base`` explicitly.

``SECRET_KEY`` and ``ALLOWED_HOSTS`` must come from the environment, and be real: the
settings refuse to load (``ImproperlyConfigured``, naming every problem at once, so that no
process starts) without a ``SECRET_KEY`` of at least 50 characters with at least 5
different ones that is not Django's or the embedded default's insecure key, or without an
``ALLOWED_HOSTS`` that names hosts (not ``*``). TLS is expected to end at a proxy that sets
``X-Forwarded-Proto``.
"""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import BASE_DIR, env

DEBUG = False

# Django's own criteria for a key that is not a placeholder (its security.W009 check).
_MIN_KEY_LENGTH = 50
_MIN_KEY_CHARACTERS = 5


def _secret_key_problem(key: str) -> str | None:
    if not key:
        return "SECRET_KEY is not set"
    if (
        key.startswith("django-insecure")
        or len(key) < _MIN_KEY_LENGTH
        or len(set(key)) < _MIN_KEY_CHARACTERS
    ):
        return (
            f"SECRET_KEY is not a real secret (it needs at least {_MIN_KEY_LENGTH} random "
            "characters and must not be a development key; e.g. python -c "
            '"import secrets; print(secrets.token_urlsafe(64))")'
        )
    return None


def _allowed_hosts_problem(hosts: list[str]) -> str | None:
    if not hosts:
        return "ALLOWED_HOSTS is not set (the host names the service answers to, comma-separated)"
    if "*" in hosts:
        return "ALLOWED_HOSTS must name the service's hosts, not '*'"
    return None


SECRET_KEY = env.str("SECRET_KEY", default="").strip()
ALLOWED_HOSTS = [h.strip() for h in env.list("ALLOWED_HOSTS", default=[]) if h.strip()]
_problems = [
    p for p in (_secret_key_problem(SECRET_KEY), _allowed_hosts_problem(ALLOWED_HOSTS)) if p
]
if _problems:
    raise ImproperlyConfigured(
        "The production settings (fido.settings.production) refuse to start: "
        + "; ".join(_problems)
        + ". For development or the demo, set DJANGO_SETTINGS_MODULE=fido.settings.base "
        "(make demo and make test do)."
    )

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
# /healthz is probed over plain HTTP by the load balancer.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = False
STATIC_ROOT = env("STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))
