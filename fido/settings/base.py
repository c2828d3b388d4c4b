"""Settings of the FIDO service, read from environment variables with safe embedded defaults.

Every setting below that comes from the environment is listed in the README. With nothing
set, the service runs on the embedded default: a SQLite file and a Celery broker on the
file system (kombu's ``filesystem`` transport) under ``FIDO_VAR_DIR``. With ``DATABASE_URL``
and ``REDIS_URL`` set, the same code runs on PostgreSQL and Redis.
"""

from __future__ import annotations

import os
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

# Runtime files of the embedded default (SQLite database, file broker, results, beat schedule).
VAR_DIR = Path(env("FIDO_VAR_DIR", default=str(BASE_DIR / "var")))

SECRET_KEY = env("SECRET_KEY", default="django-insecure-embedded-default-do-not-use-in-production")
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# The federation's time zone: months, deadlines and the close schedule are computed in it.
FIDO_TIMEZONE = env("FIDO_TIMEZONE", default="Europe/Berlin")
# The monthly close: minutes after a month's deadline at which the scheduler closes it; the
# ranking job's soft time limit in seconds (hard limit: 60 s more); parallel COPY readers
# and writers.
FIDO_CLOSE_DELAY = env.int("FIDO_CLOSE_DELAY", default=5)
FIDO_CLOSE_TIME_LIMIT = env.int("FIDO_CLOSE_TIME_LIMIT", default=1800)
# A running close stamps its run every FIDO_CLOSE_HEARTBEAT seconds; a run silent for
# FIDO_CLOSE_STALE_AFTER seconds lost its worker and beat re-dispatches it
# (rankings.services.close_recover; beat checks every FIDO_CLOSE_RECOVER_EVERY seconds).
FIDO_CLOSE_HEARTBEAT = env.int("FIDO_CLOSE_HEARTBEAT", default=10)
FIDO_CLOSE_STALE_AFTER = env.int("FIDO_CLOSE_STALE_AFTER", default=60)
FIDO_CLOSE_LOAD_STREAMS = env.int("FIDO_CLOSE_LOAD_STREAMS", default=2)
FIDO_CLOSE_WRITE_STREAMS = env.int("FIDO_CLOSE_WRITE_STREAMS", default=2)
# The close reads the points of earlier months from their result packs and packs the months
# it counts first (PostgreSQL; rankings.result_packs). Off: every result read as a row.
FIDO_CLOSE_RESULT_PACKS = env.bool("FIDO_CLOSE_RESULT_PACKS", default=True)
# After each close a worker packs the match points of every player with at least this many
# results counting in the new list (PostgreSQL; rankings.player_packs): their pages read
# them from one row instead of scoring every match again.
FIDO_PLAYER_PACK_MIN_RESULTS = env.int("FIDO_PLAYER_PACK_MIN_RESULTS", default=100)
# NumPy asks the kernel for transparent huge pages for its large arrays (madvise). Where the
# kernel's THP defrag policy is "madvise" (Debian's default), such a page fault may compact
# memory first: on the reference machine eight 96 MB arrays were filled in 1.47 s of system
# time with NumPy's default, 0.42 s without (docs/performance.md, "Huge pages"), and a close
# fills some 1 GB of them. Off unless FIDO_NUMPY_HUGEPAGES=1; read by NumPy when it is first
# imported, which the settings come before (an explicit NUMPY_MADVISE_HUGEPAGE wins).
os.environ.setdefault(
    "NUMPY_MADVISE_HUGEPAGE", "1" if env.bool("FIDO_NUMPY_HUGEPAGES", default=False) else "0"
)

INSTALLED_APPS = [
    # The admin without its autodiscovery at start-up: fido/urls.py discovers the apps'
    # admin modules when the URLs load (the web process), so that a management command
    # or a worker does not import every admin, form and service module (issue 12).
    "django.contrib.admin.apps.SimpleAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "axes",
    "drf_spectacular_sidecar",  # Swagger UI's files, pinned by the lock file, served locally
    "django_countries",  # country names in the visitor's language (its CLDR-based catalogues)
    "matches",
    "rankings",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "fido.middleware.TextBoundaryMiddleware",
    "fido.middleware.ApiNotFoundMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "fido.errors.QuietBadRequest",
    "axes.middleware.AxesMiddleware",  # last, as Axes requires
]

ROOT_URLCONF = "fido.urls"
WSGI_APPLICATION = "fido.wsgi.application"
ASGI_APPLICATION = "fido.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "rankings.context_processors.holds",
            ],
            # Django's i18n tags with translated literals remembered, as {% load fido_i18n %}.
            "libraries": {"fido_i18n": "fido.i18n_tags"},
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'fido.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # WAL lets the web server and the worker read while one of them writes; IMMEDIATE
    # transactions take the write lock up front instead of failing half-way.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    # The test database is a file too, not Django's in-memory shared cache: there a read that
    # meets another connection's write lock on a table (the live server's page while the
    # in-process worker publishes) fails at once with "database table is locked", where a
    # file in WAL mode lets it read, as the demo does.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
else:
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # The same backend, with a health check that needs no round trip when idle.
        DATABASES["default"]["ENGINE"] = "fido.db.postgresql"
    # Prepared statements only where asked for: matches.sql prepares the submission
    # path's statements (prepare=True); Django's own client-side binding cursors never
    # prepare. (Django's default, None, turns preparing off altogether, for connection
    # poolers in transaction mode; this service connects to PostgreSQL directly.)
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 2**31 - 1
    # PostgreSQL's parallel workers per plan node, for this process's sessions (set when
    # the connection starts: no statement of its own). The web server sets 0
    # (fido/wsgi.py): its statements are short, and starting workers for them cost more
    # than they saved (docs/performance.md); the close keeps the server's setting.
    _parallel = env.int("FIDO_PG_PARALLEL_WORKERS", default=-1)
    if _parallel >= 0 and DATABASES["default"]["ENGINE"] == "fido.db.postgresql":
        DATABASES["default"]["OPTIONS"]["options"] = (
            f"-c max_parallel_workers_per_gather={_parallel}"
        )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates by name per language (fido/formats/): "24 November 2026" / "24. November 2026".
FORMAT_MODULE_PATH = ["fido.formats"]
TIME_ZONE = FIDO_TIMEZONE
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# No collected static files in the embedded default: WhiteNoise serves them from the finders.
STATIC_ROOT = None
STATICFILES_DIRS = [BASE_DIR / "static"]
# Serve static files straight from the apps in the embedded default (no collectstatic step).
WHITENOISE_USE_FINDERS = True

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# Uploads: the request body limit protects the server; the CSV upload has its own limit.
# Brute force (fido/lockout.py): failed logins per address and, separately, per account.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("FIDO_LOGIN_FAILURES", default=10)
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_COOLOFF_TIME = "fido.lockout.cool_off"
AXES_LOCKOUT_CALLABLE = "fido.lockout.lockout_response"
AXES_RESET_ON_SUCCESS = False
AXES_VERBOSE = False

# API tokens expire this many days after they are issued (docs/api.md).
FIDO_TOKEN_DAYS = env.int("FIDO_TOKEN_DAYS", default=90)
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("FIDO_MAX_UPLOAD_BYTES", default=5 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

# --- Redis (optional): broker, result backend and cache -------------------------------------
REDIS_URL = env("REDIS_URL", default="")

if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    # An unacknowledged task (acks_late: its worker died) is redelivered after this many
    # seconds: the close's hard time limit (FIDO_CLOSE_TIME_LIMIT + 60) plus a margin, so a
    # running job is never doubled. It is only the backstop: a close whose worker died is
    # re-dispatched by its heartbeat within FIDO_CLOSE_STALE_AFTER (+ a beat period).
    # A short connect timeout: a send to a broker that is down or unreachable fails in about
    # a second (the close stays in its run's outbox, rankings.dispatch) instead of ~20 s.
    # A worker looks for such tasks every interval x throttle seconds (kombu's defaults, 10 and
    # 10: about 100 s, well under the timeout); a test with a 3 s timeout sets both to 1.
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "visibility_timeout": env.int(
            "CELERY_VISIBILITY_TIMEOUT", default=FIDO_CLOSE_TIME_LIMIT + 60 + 120
        ),
        "unacked_restore_interval": env.int("CELERY_UNACKED_RESTORE_INTERVAL", default=10),
        "unacked_restore_throttle": env.int("CELERY_UNACKED_RESTORE_THROTTLE", default=10),
        "socket_connect_timeout": 1,
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        }
    }
else:
    _broker_dir = VAR_DIR / "broker"
    CELERY_BROKER_URL = "filesystem://"
    # kombu's transport with atomic message files (fido/embedded_broker.py).
    CELERY_BROKER_TRANSPORT = "fido.embedded_broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
    CELERY_RESULT_BACKEND = (
        f"fido.embedded_broker:AtomicFilesystemBackend+file://{VAR_DIR / 'results'}"
    )
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

# Task modules outside the apps (the apps' tasks.py are autodiscovered).
CELERY_IMPORTS = ["fido.tasks"]
CELERY_TIMEZONE = FIDO_TIMEZONE
CELERY_ENABLE_UTC = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TRACK_STARTED = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# The beat schedule (the close of every due month, every five minutes) is set in
# fido/celery.py, so that loading the settings does not import Celery.

# --- REST API ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "matches.apis.auth.FastTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # One request encoding, UTF-8 JSON: any other body is a 415 (docs/api.md).
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    # Every API error as {"errors": [{"path", "message"}]}, never a 5xx for bad input.
    "EXCEPTION_HANDLER": "matches.apis.errors.exception_handler",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": [
        "matches.apis.throttling.AnonThrottle",
        "matches.apis.throttling.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env("FIDO_THROTTLE_ANON", default="600/min"),
        "user": env("FIDO_THROTTLE_USER", default="6000/min"),
        # POSTs per user (docs/api.md): a club's secretary or its software sends a few
        # requests a minute, a batch of up to 500 matches each; a script guessing ids or
        # flooding single matches is held to two a second.
        "submissions": env("FIDO_THROTTLE_SUBMISSIONS", default="120/min"),
    },
}

# A refused form in the site's layout and language, with what to do (fido/errors.py).
CSRF_FAILURE_VIEW = "fido.errors.csrf_failure"

SPECTACULAR_SETTINGS = {
    "TITLE": "FIDO results and world-ranking API",
    "DESCRIPTION": "Submit match results, read the FIDO world rankings, replay game records.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # /api/docs/ loads Swagger UI from our static files, never from a CDN: it works without
    # internet and its version is the one requirements.lock pins (drf-spectacular-sidecar).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The text rule and the errors every endpoint can answer, stated once (fido/openapi.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "fido.openapi.schema_truths",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}
