"""Settings of the CRUDKit interop server: a small, conventional Django REST framework setup.

Only for tests on loopback: the secret key is public and the database is a throwaway SQLite file
whose path comes from CRUDKIT_DRF_DB (set by .ci/interop-server.sh to a file in a temporary directory).
"""
import os
import tempfile

SECRET_KEY = "crudkit-interop-tests-only-not-a-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "rest_framework",
    "rest_framework.authtoken",
    "people",
]

# No session or CSRF middleware: the API is used with JSON and tokens only. (DRF's views are CSRF-exempt
# anyway; CSRF would only be enforced for SessionAuthentication, which is not enabled.)
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]

ROOT_URLCONF = "interop.urls"
WSGI_APPLICATION = "interop.wsgi.application"

# Templates are needed by DRF's browsable API renderer (kept, as in a default DRF project).
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]
STATIC_URL = "static/"

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("CRUDKIT_DRF_DB") or os.path.join(tempfile.gettempdir(), "crudkit-drf-interop.sqlite3"),
        # The suite writes from ~30 request threads at once. With SQLite's defaults (rollback journal, an fsync
        # per commit, a 5 s busy timeout, deferred transactions that cannot wait when they upgrade to a write)
        # a loaded CI machine answered some POSTs with 500 "database is locked". WAL without a per-commit fsync
        # (a throwaway database), writers that take the lock up front and wait up to 30 s for it: no 500 in
        # bursts of 300 creates at once.
        "OPTIONS": {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        },
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

REST_FRAMEWORK = {
    # Everything is open except the one token-protected endpoint, which sets its own classes.
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "people.pagination.PageNumberWithSizePagination",
    "PAGE_SIZE": 10,
}

# A 500 is written to the server log (stderr, .build-interop/server.log) with its traceback: with DEBUG off,
# Django would otherwise only mail it to ADMINS, and the log would show nothing but the status.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False}},
}

# The OpenAPI 3.0 schema of these routes at /api/schema/ (drf-spectacular), which crudkit-openapi generates
# models from (.ci/openapi.sh). Request bodies get their own components (PersonRequest), as DRF reads them.
try:
    import drf_spectacular  # noqa: F401
except ImportError:  # an older venv without it: the server runs as before, without /api/schema/
    pass
else:
    INSTALLED_APPS += ["drf_spectacular"]
    REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema"}
    SPECTACULAR_SETTINGS = {"TITLE": "CRUDKit interop", "VERSION": "1.0.0", "COMPONENT_SPLIT_REQUEST": True}
